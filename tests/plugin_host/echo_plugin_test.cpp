// The bundled echo provider, loaded as agentd loads it.
#include "core/plugin_host/plugin_host.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <thread>

namespace agentrt::core {
namespace {

using nlohmann::json;

struct Collected {
  std::vector<std::string> texts;
  json usage, finish;
};

class EchoPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host.load(test::bundled("echo")).loaded) << host.statuses().back().error;
  }
  std::unique_ptr<ProviderInstance> make(const std::string& config = "{}") {
    return std::make_unique<ProviderInstance>(host.find("echo"), config);
  }
  static std::string request(const std::string& last_user_text) {
    json messages = json::array(
        {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "earlier turn"}}}}},
         {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "reply"}}}}},
         {{"role", "user"}, {"content", {{{"type", "text"}, {"text", last_user_text}}}}}});
    return json{{"model", "echo"}, {"messages", messages}}.dump();
  }
  Collected run(
      const ProviderInstance& echo, const std::string& req,
      const std::function<bool()>& cancelled = [] { return false; }) {
    Collected c;
    echo.complete(
        req,
        [&](const ProviderDelta& d) {
          if (d.kind == AGENTRT_DELTA_TEXT) c.texts.emplace_back(d.data);
          if (d.kind == AGENTRT_DELTA_USAGE) c.usage = json::parse(d.data);
          if (d.kind == AGENTRT_DELTA_FINISH) c.finish = json::parse(d.data);
          return true;
        },
        cancelled);
    return c;
  }
  PluginHost host;
};

TEST_F(EchoPlugin, DescribesItself) {
  const PluginStatus& s = host.statuses().back();
  EXPECT_EQ(s.name, "echo");
  EXPECT_EQ(s.kind, "provider");
  EXPECT_EQ(s.abi, AGENTRT_ABI_VERSION_STRING);
  auto models = json::parse(make()->list_models());
  EXPECT_EQ(models["models"][0]["id"], "echo");
}

TEST_F(EchoPlugin, StreamsTheLastUserMessageInSeveralDeltas) {
  const std::string text = "the quick brown fox jumps over the lazy dog again";
  Collected c = run(*make(), request(text));
  EXPECT_GT(c.texts.size(), 2u);
  EXPECT_LE(c.texts.size(), 8u);
  std::string joined;
  for (const auto& t : c.texts) joined += t;
  EXPECT_EQ(joined, text);
  EXPECT_EQ(c.finish["reason"], "end_turn");
  // 4 bytes a token: input is every message's text, output the answer.
  EXPECT_EQ(c.usage["output_tokens"], (text.size() + 3) / 4);
  EXPECT_EQ(c.usage["input_tokens"],
            (std::string("earlier turn").size() + 5 + text.size() + 3) / 4);
}

TEST_F(EchoPlugin, KeepsUtf8AndWhitespaceExact) {
  const std::string text = "  grüße  an  alle 🌍 ";
  std::string joined;
  for (const auto& t : run(*make(), request(text)).texts) joined += t;
  EXPECT_EQ(joined, text);
}

// A request's max_tokens cuts the answer at 4 bytes a token, never inside a letter, and
// the finish says so, as a model's does.
TEST_F(EchoPlugin, MaxTokensCutsTheAnswerAndSaysSo) {
  auto echo = make();
  const auto with_max = [](const std::string& text, int64_t max_tokens) {
    json req = json::parse(request(text));
    req["max_tokens"] = max_tokens;
    return req.dump();
  };
  const auto joined = [](const Collected& c) {
    std::string all;
    for (const auto& t : c.texts) all += t;
    return all;
  };
  Collected cut = run(*echo, with_max("one two three four five", 2));
  EXPECT_EQ(joined(cut), "one two ");
  EXPECT_EQ(cut.finish["reason"], "max_tokens");
  EXPECT_EQ(cut.usage["output_tokens"], 2);
  // "aпр": a token's 4 bytes end inside the "р", which is left out whole.
  Collected letters = run(*echo, with_max("a\xD0\xBF\xD1\x80", 1));
  EXPECT_EQ(joined(letters), "a\xD0\xBF");
  EXPECT_EQ(letters.finish["reason"], "max_tokens");
  Collected whole = run(*echo, with_max("short", 2));
  EXPECT_EQ(joined(whole), "short");
  EXPECT_EQ(whole.finish["reason"], "end_turn");
}

TEST_F(EchoPlugin, StopsPromptlyWhenCancelled) {
  auto echo = make(R"({"delay_ms":2000})");
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  try {
    run(*echo, request("one two three"), [&] { return cancel.load(); });
    ADD_FAILURE() << "a cancelled completion must fail";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.code, AGENTRT_ERR_CANCELLED);
  }
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST_F(EchoPlugin, SinkRefusalStopsTheStream) {
  auto echo = make();
  int seen = 0;
  EXPECT_THROW(echo->complete(
                   request("a b c d e f"), [&](const ProviderDelta&) { return ++seen < 2; },
                   [] { return false; }),
               PluginError);
  EXPECT_EQ(seen, 2);
}

TEST_F(EchoPlugin, RefusesUnknownConfigKeysByName) {
  try {
    make(R"({"dealy_ms":5})");
    FAIL() << "unknown key accepted";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("'dealy_ms'"), std::string::npos) << e.what();
  }
}

TEST_F(EchoPlugin, RefusesARequestWithoutMessages) {
  EXPECT_THROW(run(*make(), R"({"model":"echo","messages":[]})"), PluginError);
}

}  // namespace
}  // namespace agentrt::core
