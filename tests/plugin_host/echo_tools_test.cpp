// The bundled echo provider's tool calls, loaded as agentd loads it: asked in so many
// words ("call <name> <JSON object>") or made to by tool_choice, it calls a tool, and
// it answers a tool message with the results, so the offline default shows a round
// trip (docs/plugin-author-guide.md, "The echo provider").
#include "core/plugin_host/plugin_host.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Named for what it tests: the unity build puts several test files in one unit.
namespace agentrt::core::echo_tools {
namespace {

using nlohmann::json;

// What one completion sent: each delta's kind, the text joined, the calls parsed, and
// the finish reason.
struct Deltas {
  std::vector<uint32_t> kinds;
  std::string text;
  std::vector<json> calls;
  json finish;
};

json text_message(const std::string& role, const std::string& text) {
  return {{"role", role}, {"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

const json kTools = json::array({{{"name", "get_weather"}, {"parameters", {{"type", "object"}}}},
                                 {{"name", "get_time"}, {"parameters", {{"type", "object"}}}}});

json tool_request(const std::string& last_user_text, const json& tool_choice = nullptr) {
  json request = {
      {"model", "echo"},
      {"messages", json::array({text_message("user", "earlier"), text_message("assistant", "reply"),
                                text_message("user", last_user_text)})},
      {"tools", kTools}};
  if (!tool_choice.is_null()) request["tool_choice"] = tool_choice;
  return request;
}

class EchoTools : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host.load(test::bundled("echo")).loaded) << host.statuses().back().error;
    echo = std::make_unique<ProviderInstance>(host.find("echo"), "{}");
  }
  Deltas run(const json& request) {
    Deltas out;
    echo->complete(
        request.dump(),
        [&](const ProviderDelta& d) {
          out.kinds.push_back(d.kind);
          if (d.kind == AGENTRT_DELTA_TEXT) out.text += std::string(d.data);
          if (d.kind == AGENTRT_DELTA_TOOL_CALL) out.calls.push_back(json::parse(d.data));
          if (d.kind == AGENTRT_DELTA_FINISH) out.finish = json::parse(d.data)["reason"];
          return true;
        },
        [] { return false; });
    return out;
  }
  static json call(const std::string& id, const std::string& name, const std::string& arguments) {
    return {{"id", id}, {"name", name}, {"arguments", arguments}};
  }
  PluginHost host;
  std::unique_ptr<ProviderInstance> echo;
};

TEST_F(EchoTools, SaysItSupportsTools) {
  EXPECT_EQ(json::parse(echo->list_models())["models"][0]["supports_tools"], true);
}

// One call, no text: its id counts the request's messages, so a session's turns differ.
TEST_F(EchoTools, CallsAnOfferedToolWhenAskedInSoManyWords) {
  Deltas out = run(tool_request(R"(call get_weather {"city": "Oslo"})"));
  EXPECT_EQ(out.kinds, (std::vector<uint32_t>{AGENTRT_DELTA_TOOL_CALL, AGENTRT_DELTA_USAGE,
                                              AGENTRT_DELTA_FINISH}));
  EXPECT_EQ(out.calls,
            std::vector<json>{call("call_echo_3", "get_weather", R"({"city": "Oslo"})")});
  EXPECT_EQ(out.finish, "tool_use");
  EXPECT_EQ(run(tool_request("  call get_time ")).calls,
            std::vector<json>{call("call_echo_3", "get_time", "{}")});
}

// Not a call of an offered tool with a JSON object, or tools not offered, or
// tool_choice "none": the text comes back, as without tools.
TEST_F(EchoTools, EchoesWhatIsNoCallAsBefore) {
  for (const std::string text : {"call get_weather [1]", "call get_weather {\"a\":", "call nothing",
                                 "please call get_weather", "call"}) {
    Deltas out = run(tool_request(text));
    EXPECT_TRUE(out.calls.empty()) << text;
    EXPECT_EQ(out.text, text);
    EXPECT_EQ(out.finish, "end_turn");
  }
  json no_tools = tool_request("call get_weather");
  no_tools.erase("tools");
  EXPECT_EQ(run(no_tools).text, "call get_weather");
  Deltas none = run(tool_request("call get_weather", "none"));
  EXPECT_TRUE(none.calls.empty());
  EXPECT_EQ(none.text, "call get_weather");
}

// "required" makes it call the first tool, a named tool that tool, with {}, unless the
// text asks for a call tool_choice allows.
TEST_F(EchoTools, ToolChoiceMakesItCall) {
  EXPECT_EQ(run(tool_request("hello", "required")).calls,
            std::vector<json>{call("call_echo_3", "get_weather", "{}")});
  EXPECT_EQ(run(tool_request(R"(call get_time {"tz":"CET"})", "required")).calls,
            std::vector<json>{call("call_echo_3", "get_time", R"({"tz":"CET"})")});
  const json get_time = {{"type", "tool"}, {"name", "get_time"}};
  EXPECT_EQ(run(tool_request("hello", get_time)).calls,
            std::vector<json>{call("call_echo_3", "get_time", "{}")});
  EXPECT_EQ(run(tool_request(R"(call get_weather {"city":"Oslo"})", get_time)).calls,
            std::vector<json>{call("call_echo_3", "get_time", "{}")});
}

// The round trip's second half: a line a result, in order, named by the call it answers.
TEST_F(EchoTools, AnswersAToolMessageWithItsResults) {
  json request = tool_request(R"(call get_weather {"city":"Oslo"})");
  request["messages"].push_back({{"role", "assistant"},
                                 {"content", json::array({{{"type", "tool_call"},
                                                           {"id", "call_echo_3"},
                                                           {"name", "get_weather"},
                                                           {"arguments", R"({"city":"Oslo"})"}},
                                                          {{"type", "tool_call"},
                                                           {"id", "call_echo_3b"},
                                                           {"name", "get_time"},
                                                           {"arguments", "{}"}}})}});
  request["messages"].push_back({{"role", "tool"},
                                 {"content", json::array({{{"type", "tool_result"},
                                                           {"tool_call_id", "call_echo_3"},
                                                           {"output", "sunny"}},
                                                          {{"type", "tool_result"},
                                                           {"tool_call_id", "call_echo_3b"},
                                                           {"output", "clock broke"},
                                                           {"is_error", true}}})}});
  request["tool_choice"] = "required";  // results are answered, not called again
  Deltas out = run(request);
  EXPECT_TRUE(out.calls.empty());
  EXPECT_EQ(out.text, "get_weather returned: sunny\nget_time failed: clock broke");
  EXPECT_EQ(out.finish, "end_turn");
  // A user message after the results is echoed as before; its call gets a new id.
  request["messages"].push_back(text_message("user", "call get_time"));
  EXPECT_EQ(run(request).calls, std::vector<json>{call("call_echo_6", "get_time", "{}")});
}

}  // namespace
}  // namespace agentrt::core::echo_tools
