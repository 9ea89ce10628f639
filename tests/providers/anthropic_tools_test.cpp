// Tool calls through the Anthropic plugin, loaded by the real plugin host, against the
// fake's Messages stream: a call goes out as one delta and the completion ends with
// tool_use; the result goes back in the form the service takes (which the fake
// checks); a call cut off by a cancel is no call.
#include "tests/providers/harness.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

// Named for its vendor and feature: the unity build puts several test files in one unit.
namespace agentrt::test::anthropic_tools {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const json kWeatherTool = {
    {"name", "get_weather"},
    {"description", "The weather in a city"},
    {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}};

// The tool calls among a completion's deltas, each parsed.
struct Calls {
  std::vector<json> calls;
  std::function<bool(const ProviderDelta&)> recorder() {
    return [this](const ProviderDelta& delta) {
      if (delta.kind == AGENTRT_DELTA_TOOL_CALL) calls.push_back(json::parse(delta.data));
      return true;
    };
  }
};

json tool_request(json messages) {
  return {
      {"model", kModel}, {"messages", std::move(messages)}, {"tools", json::array({kWeatherTool})}};
}

class AnthropicTools : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::anthropic, config_for(fake)); }
  FakeUpstream fake{Vendor::anthropic};
  std::unique_ptr<ProviderInstance> provider;
};

TEST_F(AnthropicTools, ACallIsOneToolCallDeltaThenTheFinishSaysToolUse) {
  fake.enqueue(Reply::calling({{"toolu_01A", "get_weather", R"({"city": "Z\u00fcrich"})", 4}},
                              "Let me check."));
  Calls seen;
  Outcome out =
      run(*provider, tool_request({text_message("user", "weather?")}), {}, seen.recorder());
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.text(), "Let me check.");
  std::vector<uint32_t> kinds(out.texts.size(), AGENTRT_DELTA_TEXT);
  kinds.insert(kinds.end(), {AGENTRT_DELTA_TOOL_CALL, AGENTRT_DELTA_USAGE, AGENTRT_DELTA_FINISH});
  EXPECT_EQ(out.kinds, kinds);
  EXPECT_EQ(seen.calls, std::vector<json>({{{"id", "toolu_01A"},
                                            {"name", "get_weather"},
                                            {"arguments", R"({"city": "Z\u00fcrich"})"}}}));
  EXPECT_EQ(out.finish, (json{{"reason", "tool_use"}}));
}

TEST_F(AnthropicTools, ParallelCallsWithoutTextAreTwoDeltasInOrder) {
  fake.enqueue(Reply::calling({{"toolu_1", "get_weather", R"({"city":"Oslo"})", 3},
                               {"toolu_2", "get_weather", R"({"city":"Rome"})", 2}}));
  Calls seen;
  Outcome out = run(*provider, tool_request({text_message("user", "both")}), {}, seen.recorder());
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_TRUE(out.texts.empty());
  ASSERT_EQ(seen.calls.size(), 2u);
  EXPECT_EQ(seen.calls[0]["arguments"], R"({"city":"Oslo"})");
  EXPECT_EQ(seen.calls[1]["id"], "toolu_2");
  EXPECT_EQ(out.finish, (json{{"reason", "tool_use"}}));
}

// The next request carries the call and its result: the fake takes it only in the
// service's form (results first in the user message after the calls).
TEST_F(AnthropicTools, TheResultGoesBackInTheMessagesForm) {
  json messages = json::array({text_message("user", "weather?"),
                               {{"role", "assistant"},
                                {"content", json::array({{{"type", "text"}, {"text", "Checking."}},
                                                         {{"type", "tool_call"},
                                                          {"id", "toolu_01A"},
                                                          {"name", "get_weather"},
                                                          {"arguments", R"({"city":"Oslo"})"}}})}},
                               {{"role", "tool"},
                                {"content", json::array({{{"type", "tool_result"},
                                                          {"tool_call_id", "toolu_01A"},
                                                          {"output", "sunny, 21 C"}}})}},
                               text_message("user", "and tomorrow?")});
  Outcome out = run(*provider, tool_request(messages));
  ASSERT_FALSE(out.error) << out.message();
  const json sent = fake.last_request().json();
  EXPECT_EQ(
      sent["messages"],
      json::array(
          {{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "weather?"}}})}},
           {{"role", "assistant"},
            {"content", json::array({{{"type", "text"}, {"text", "Checking."}},
                                     {{"type", "tool_use"},
                                      {"id", "toolu_01A"},
                                      {"name", "get_weather"},
                                      {"input", {{"city", "Oslo"}}}}})}},
           {{"role", "user"},
            {"content", json::array({{{"type", "tool_result"},
                                      {"tool_use_id", "toolu_01A"},
                                      {"content", "sunny, 21 C"}},
                                     {{"type", "text"}, {"text", "and tomorrow?"}}})}}}));
  EXPECT_EQ(sent["tools"], json::array({{{"name", "get_weather"},
                                         {"description", "The weather in a city"},
                                         {"input_schema", kWeatherTool["parameters"]}}}));
}

// The fake refuses as the service does what the plugin must never send; these prove the
// refusals hold, so that the test above proves something.
TEST_F(AnthropicTools, TheFakeRefusesCallsAndResultsThatDoNotPair) {
  const json call = {{"role", "assistant"},
                     {"content", json::array({{{"type", "tool_call"},
                                               {"id", "toolu_1"},
                                               {"name", "get_weather"},
                                               {"arguments", "{}"}}})}};
  const json stray = {
      {"role", "tool"},
      {"content",
       json::array({{{"type", "tool_result"}, {"tool_call_id", "toolu_other"}, {"output", "x"}}})}};
  Outcome unanswered = run(
      *provider, tool_request({text_message("user", "hi"), call, text_message("user", "well?")}));
  EXPECT_NE(unanswered.message().find("`tool_use` ids were found without `tool_result` blocks "
                                      "immediately after: toolu_1"),
            std::string::npos)
      << unanswered.message();
  Outcome unexpected = run(*provider, tool_request({text_message("user", "hi"), stray}));
  EXPECT_NE(unexpected.message().find("unexpected `tool_use_id` found in `tool_result` blocks: "
                                      "toolu_other"),
            std::string::npos)
      << unexpected.message();
}

// Between two input_json_delta fragments of a call the upstream goes silent and the
// call is cancelled: nothing of the call went out, and the completion ends cancelled.
// The same stream uncut gives the call, so the silence is what keeps it back.
TEST_F(AnthropicTools, ACancelBetweenTwoFragmentsEmitsNoCall) {
  const FakeToolCall call{"toolu_1", "get_weather", R"({"city":"Oslo"})", 3};
  fake.enqueue(Reply::calling({call}));
  Calls whole;
  ASSERT_FALSE(
      run(*provider, tool_request({text_message("user", "hi")}), {}, whole.recorder()).error);
  ASSERT_EQ(whole.calls.size(), 1u);

  Reply cut = Reply::calling({call});
  cut.kind = Reply::Kind::hang_after_headers;
  cut.after_deltas = 3;  // the block's start, its empty fragment, and the first piece
  fake.enqueue(cut);
  std::atomic<bool> started{false}, cancel{false};
  Calls seen;
  std::thread canceller([&] {
    for (int i = 0; i < 5000 && !started; ++i) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);  // the pieces sent with message_start are read
    cancel = true;
  });
  Outcome out = run(
      *provider, tool_request({text_message("user", "hi")}), [&] { return cancel.load(); },
      [&](const ProviderDelta& delta) {
        started = true;  // message_start's input count
        return seen.recorder()(delta);
      });
  canceller.join();
  EXPECT_EQ(out.code(), AGENTRT_ERR_CANCELLED) << out.message();
  EXPECT_TRUE(seen.calls.empty());
  EXPECT_EQ(std::count(out.kinds.begin(), out.kinds.end(), AGENTRT_DELTA_TOOL_CALL), 0);
  EXPECT_FALSE(out.finish);
}

}  // namespace
}  // namespace agentrt::test::anthropic_tools
