// Ollama tool calls both ways: /api/chat's form of tools (and what stands for the
// tool_choice it lacks), an answer's calls with object arguments and the results named
// by tool in the body; whole calls streamed back through the real plugin host.
#include "common/chat_request.h"
#include "ollama/ollama_request.h"
#include "tests/providers/harness.h"
#include "tests/providers/tool_requests.h"

// Named for its vendor: the unity build puts the vendors' files in one unit.
namespace agentrt::test::ollama_tools {
namespace {

using nlohmann::json;

const json kWeatherTool = {{"type", "function"},
                           {"function",
                            {{"name", "get_weather"},
                             {"description", "The weather in a city"},
                             {"parameters", weather_schema()}}}};
const json kNowTool = {{"type", "function"},
                       {"function", {{"name", "now"}, {"parameters", {{"type", "object"}}}}}};

json answered_request() {
  return test::answered_request("call_k3v9x2aa", "{\"city\": \"Paris\", \"days\": [1]}",
                                "now please");
}

const json kAnsweredMessages = json::array(
    {{{"role", "user"}, {"content", "Weather in Paris, and the time?"}},
     {{"role", "assistant"},
      {"content", "Checking."},
      {"tool_calls",
       json::array(
           {{{"id", "call_k3v9x2aa"},
             {"function",
              {{"name", "get_weather"}, {"arguments", {{"city", "Paris"}, {"days", {1}}}}}}},
            {{"id", "call_2"}, {"function", {{"name", "now"}, {"arguments", json::object()}}}}})}},
     {{"role", "tool"},
      {"content", "18 C, clear"},
      {"tool_call_id", "call_k3v9x2aa"},
      {"tool_name", "get_weather"}},
     {{"role", "tool"},
      {"content", "clock unavailable"},
      {"tool_call_id", "call_2"},
      {"tool_name", "now"}}});

json body_of(const json& request) {
  return json::parse(
      providers::ollama::request_body(providers::parse_chat_request(request.dump())));
}

TEST(OllamaToolBody, ToolsCallsAndResultsInTheChatForm) {
  const std::string body =
      providers::ollama::request_body(providers::parse_chat_request(answered_request().dump()));
  EXPECT_EQ(body, json::parse(body).dump());  // sorted keys, compact, as dump() writes
  const json sent = json::parse(body);
  EXPECT_EQ(sent["messages"], kAnsweredMessages);
  EXPECT_EQ(sent["tools"], json::array({kWeatherTool, kNowTool}));
}

// Ollama has no tool_choice: "none" offers no tools, a named tool only that one.
TEST(OllamaToolBody, ToolChoiceDecidesWhichToolsGo) {
  const std::vector<std::pair<json, json>> choices = {
      {"auto", json::array({kWeatherTool, kNowTool})},
      {"required", json::array({kWeatherTool, kNowTool})},
      {{{"type", "tool"}, {"name", "now"}}, json::array({kNowTool})}};
  for (const auto& [choice, sent] : choices) {
    json request = user_request("hi");
    request["tools"] = offered_tools();
    request["tool_choice"] = choice;
    const json body = body_of(request);
    EXPECT_EQ(body["tools"], sent) << choice.dump();
    EXPECT_FALSE(body.contains("tool_choice"));
  }
  json request = user_request("hi");
  request["tools"] = offered_tools();
  request["tool_choice"] = "none";
  EXPECT_FALSE(body_of(request).contains("tools"));
}

class OllamaTools : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::ollama, config_for(fake, "")); }
  FakeUpstream fake{Vendor::ollama};
  std::unique_ptr<ProviderInstance> provider;
};

// Current Ollama gives each call an id, older versions none: the host makes one then.
TEST_F(OllamaTools, WholeCallsStreamOutThenFinishInToolUse) {
  fake.enqueue(Reply::calling(
      {{"call_k3v9x2aa", "get_weather", R"({"city":"Paris"})", 1}, {"", "now", "{}", 1}},
      "Let me check."));
  json request = user_request("Weather in Paris?");
  request["tools"] = offered_tools();
  std::vector<json> calls;
  Outcome out = run(*provider, request, {}, [&](const ProviderDelta& delta) {
    if (delta.kind == AGENTRT_DELTA_TOOL_CALL) calls.push_back(json::parse(delta.data));
    return true;
  });
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.text(), "Let me check.");
  std::vector<uint32_t> kinds(out.texts.size(), AGENTRT_DELTA_TEXT);
  kinds.insert(kinds.end(), {AGENTRT_DELTA_TOOL_CALL, AGENTRT_DELTA_TOOL_CALL, AGENTRT_DELTA_USAGE,
                             AGENTRT_DELTA_FINISH});
  EXPECT_EQ(out.kinds, kinds);
  EXPECT_EQ(
      calls,
      std::vector<json>(
          {{{"id", "call_k3v9x2aa"}, {"name", "get_weather"}, {"arguments", R"({"city":"Paris"})"}},
           {{"id", ""}, {"name", "now"}, {"arguments", "{}"}}}));
  EXPECT_EQ(out.finish, (json{{"reason", "tool_use"}}));
  EXPECT_EQ(fake.last_request().json()["tools"], json::array({kWeatherTool, kNowTool}));
}

TEST_F(OllamaTools, TheResultsReachOllamaInItsForm) {
  Outcome out = run(*provider, answered_request());
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.finish, (json{{"reason", "end_turn"}}));
  EXPECT_EQ(fake.last_request().json()["messages"], kAnsweredMessages);
}

}  // namespace
}  // namespace agentrt::test::ollama_tools
