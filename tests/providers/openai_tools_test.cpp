// OpenAI tool calls both ways: the Chat Completions form of tools, tool_choice, an
// answer's calls and their results in the body; calls streamed back through the real
// plugin host from the fake upstream, which refuses what OpenAI refuses.
#include "common/chat_request.h"
#include "openai/openai_request.h"
#include "tests/providers/harness.h"
#include "tests/providers/tool_requests.h"

#include <atomic>
#include <chrono>
#include <thread>

// Named for its vendor: the unity build puts the vendors' files in one unit.
namespace agentrt::test::openai_tools {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json answered_request() {
  return test::answered_request("call_1", "{\"city\":\"Paris\"}", "{}");
}

const json kAnsweredMessages = json::array(
    {{{"role", "user"}, {"content", "Weather in Paris, and the time?"}},
     {{"role", "assistant"},
      {"content", "Checking."},
      {"tool_calls",
       json::array(
           {{{"id", "call_1"},
             {"type", "function"},
             {"function", {{"name", "get_weather"}, {"arguments", "{\"city\":\"Paris\"}"}}}},
            {{"id", "call_2"},
             {"type", "function"},
             {"function", {{"name", "now"}, {"arguments", "{}"}}}}})}},
     {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "18 C, clear"}},
     {{"role", "tool"}, {"tool_call_id", "call_2"}, {"content", "clock unavailable"}}});

const json kVendorTools =
    json::array({{{"type", "function"},
                  {"function",
                   {{"name", "get_weather"},
                    {"description", "The weather in a city"},
                    {"parameters", weather_schema()}}}},
                 {{"type", "function"},
                  {"function", {{"name", "now"}, {"parameters", {{"type", "object"}}}}}}});

json body_of(const json& request) {
  return json::parse(
      providers::openai::request_body(providers::parse_chat_request(request.dump())));
}

TEST(OpenAiToolBody, ToolsCallsAndResultsInTheChatCompletionsForm) {
  const json request = answered_request();
  const std::string body =
      providers::openai::request_body(providers::parse_chat_request(request.dump()));
  EXPECT_EQ(body, json::parse(body).dump());  // sorted keys, compact, as dump() writes
  const json sent = json::parse(body);
  EXPECT_EQ(sent["messages"], kAnsweredMessages);
  EXPECT_EQ(sent["tools"], kVendorTools);
  EXPECT_FALSE(sent.contains("tool_choice"));
}

TEST(OpenAiToolBody, AnAnswerOfCallsAloneHasNullContent) {
  json request = answered_request();
  request["messages"][1]["content"].erase(0);
  EXPECT_EQ(body_of(request)["messages"][1]["content"], nullptr);
}

TEST(OpenAiToolBody, ToolChoiceInOpenAisWords) {
  const std::vector<std::pair<json, json>> choices = {
      {"auto", "auto"},
      {"none", "none"},
      {"required", "required"},
      {{{"type", "tool"}, {"name", "now"}},
       {{"type", "function"}, {"function", {{"name", "now"}}}}}};
  for (const auto& [choice, sent] : choices) {
    json request = user_request("hi");
    request["tools"] = offered_tools();
    request["tool_choice"] = choice;
    EXPECT_EQ(body_of(request)["tool_choice"], sent) << choice.dump();
  }
  // OpenAI refuses a tool_choice without tools.
  json request = user_request("hi");
  request["tool_choice"] = "none";
  EXPECT_FALSE(body_of(request).contains("tool_choice"));
  EXPECT_FALSE(body_of(request).contains("tools"));
}

class OpenAiTools : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::openai, config_for(fake)); }
  FakeUpstream fake{Vendor::openai};
  std::unique_ptr<ProviderInstance> provider;
};

// The data of each tool-call delta `request` streams, and the outcome.
std::pair<Outcome, std::vector<json>> run_collecting_calls(const ProviderInstance& provider,
                                                           const json& request) {
  std::vector<json> calls;
  Outcome out = run(provider, request, {}, [&](const ProviderDelta& delta) {
    if (delta.kind == AGENTRT_DELTA_TOOL_CALL) calls.push_back(json::parse(delta.data));
    return true;
  });
  return {out, calls};
}

json weather_request() {
  json request = user_request("Weather in Paris?");
  request["tools"] = offered_tools();
  return request;
}

TEST_F(OpenAiTools, ACallStreamsOutAsOneDeltaThenFinishesInToolUse) {
  fake.enqueue(
      Reply::calling({{"call_abc", "get_weather", "{\"city\":\"Paris\"}", 4}}, "Let me check."));
  auto [out, calls] = run_collecting_calls(*provider, weather_request());
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.text(), "Let me check.");
  std::vector<uint32_t> kinds(out.texts.size(), AGENTRT_DELTA_TEXT);
  kinds.insert(kinds.end(), {AGENTRT_DELTA_TOOL_CALL, AGENTRT_DELTA_USAGE, AGENTRT_DELTA_FINISH});
  EXPECT_EQ(out.kinds, kinds);
  EXPECT_EQ(
      calls,
      std::vector<json>(
          {{{"id", "call_abc"}, {"name", "get_weather"}, {"arguments", "{\"city\":\"Paris\"}"}}}));
  EXPECT_EQ(out.finish, (json{{"reason", "tool_use"}}));
  EXPECT_EQ(fake.last_request().json()["tools"], kVendorTools);
}

TEST_F(OpenAiTools, ParallelCallsAndCallsWithoutAnIndex) {
  for (bool omit_index : {false, true}) {
    Reply reply = Reply::calling(
        {{"call_1", "get_weather", "{\"city\":\"Oslo\"}", 3}, {"call_2", "now", "{}", 1}});
    reply.omit_tool_index = omit_index;
    fake.enqueue(reply);
    auto [out, calls] = run_collecting_calls(*provider, weather_request());
    ASSERT_FALSE(out.error) << out.message();
    EXPECT_EQ(
        calls,
        std::vector<json>(
            {{{"id", "call_1"}, {"name", "get_weather"}, {"arguments", "{\"city\":\"Oslo\"}"}},
             {{"id", "call_2"}, {"name", "now"}, {"arguments", "{}"}}}))
        << omit_index;
    EXPECT_EQ(out.finish, (json{{"reason", "tool_use"}}));
  }
}

TEST_F(OpenAiTools, TheResultsReachOpenAiInItsForm) {
  Outcome out = run(*provider, answered_request());
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.text(), "Hello, world!");
  const json sent = fake.last_request().json();
  EXPECT_EQ(sent["messages"], kAnsweredMessages);
  EXPECT_EQ(sent["tools"], kVendorTools);
}

// The fake refuses, as OpenAI does, results that answer no call before them and calls
// left unanswered: the plugin's bodies pass only because they are right.
TEST_F(OpenAiTools, TheFakeRefusesResultsWithoutTheirCalls) {
  json orphan = answered_request();
  orphan["messages"].erase(1);
  Outcome out = run(*provider, orphan);
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM) << out.message();
  EXPECT_NE(out.message().find("must be a response to a preceeding message"), std::string::npos)
      << out.message();
  json unanswered = answered_request();
  unanswered["messages"][2]["content"].erase(1);
  out = run(*provider, unanswered);
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM) << out.message();
  EXPECT_NE(out.message().find("did not have response messages: call_2"), std::string::npos)
      << out.message();
}

// Cancelled while the upstream is silent between two fragments of a call's arguments:
// the call was never whole, so it never goes out.
TEST_F(OpenAiTools, ACancelBetweenTwoArgumentFragmentsEmitsNoCall) {
  Reply reply = Reply::calling({{"call_1", "get_weather", "{\"city\":\"Paris\"}", 3}}, "Looking.");
  reply.deltas = 1;
  reply.kind = Reply::Kind::hang_after_headers;
  reply.after_deltas = 3;  // the text, the call's opening and its first fragment
  fake.enqueue(reply);
  std::atomic<bool> text{false}, cancel{false};
  std::thread canceller([&] {
    for (int i = 0; i < 2000 && !text; ++i) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);  // the first fragment arrives meanwhile
    cancel = true;
  });
  Outcome out = run(
      *provider, weather_request(), [&] { return cancel.load(); },
      [&](const ProviderDelta& delta) {
        text = text || delta.kind == AGENTRT_DELTA_TEXT;
        return true;
      });
  canceller.join();
  EXPECT_EQ(out.code(), AGENTRT_ERR_CANCELLED) << out.message();
  EXPECT_EQ(out.kinds, std::vector<uint32_t>{AGENTRT_DELTA_TEXT});
  EXPECT_EQ(out.text(), "Looking.");
  EXPECT_TRUE(fake.wait_for_client_abort(1s));
}

}  // namespace
}  // namespace agentrt::test::openai_tools
