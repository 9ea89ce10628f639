// Client tools end to end through each vendor's plugin, against fake upstreams that
// stream calls in the vendor's real wire format (docs/tools.md): the model's call
// reaches the client as a tool_call event and a done of reason tool_use, the session
// keeps it pending, the next run answers it, and what the vendor is sent on that turn
// is its own form of the call and its result. /run and /chat alike.
#include "tests/api/tool_client.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

// The vendor's id for a call; Ollama gives none, and agentd makes one.
std::string vendor_id(Vendor vendor, int n) {
  switch (vendor) {
    case Vendor::openai:
      return "call_abc" + std::to_string(n);
    case Vendor::anthropic:
      return "toolu_01abc" + std::to_string(n);
    case Vendor::ollama:
      return "";
  }
  return "";
}

// The tools as the vendor was sent them: each names get_weather with its schema.
void expect_tools_sent(Vendor vendor, const json& request) {
  ASSERT_TRUE(request.contains("tools")) << request.dump();
  const json& tool = request["tools"][0];
  if (vendor == Vendor::anthropic) {
    EXPECT_EQ(tool["name"], "get_weather");
    EXPECT_EQ(tool["input_schema"], weather_tool()["parameters"]);
  } else {
    EXPECT_EQ(tool["type"], "function");
    EXPECT_EQ(tool["function"]["name"], "get_weather");
    EXPECT_EQ(tool["function"]["parameters"], weather_tool()["parameters"]);
  }
}

// The second turn as the vendor was sent it: the question, the model's call in the
// vendor's form, and the result in the vendor's form.
void expect_second_turn(Vendor vendor, const json& request, const std::string& call_id) {
  const json& messages = request["messages"];
  ASSERT_EQ(messages.size(), 3u) << request.dump();
  const json& call = messages[1];
  const json& result = messages[2];
  EXPECT_EQ(call["role"], "assistant") << request.dump();
  switch (vendor) {
    case Vendor::openai:
      EXPECT_EQ(call["tool_calls"][0]["id"], call_id) << request.dump();
      EXPECT_EQ(call["tool_calls"][0]["type"], "function");
      EXPECT_EQ(call["tool_calls"][0]["function"]["name"], "get_weather");
      EXPECT_EQ(call["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris"})");
      EXPECT_EQ(result["role"], "tool");
      EXPECT_EQ(result["tool_call_id"], call_id);
      EXPECT_EQ(result["content"], "sunny, 24C");
      break;
    case Vendor::anthropic: {
      const json& use = call["content"].back();
      EXPECT_EQ(use["type"], "tool_use") << request.dump();
      EXPECT_EQ(use["id"], call_id);
      EXPECT_EQ(use["name"], "get_weather");
      EXPECT_EQ(use["input"], (json{{"city", "Paris"}}));
      EXPECT_EQ(result["role"], "user");
      EXPECT_EQ(result["content"][0]["type"], "tool_result");
      EXPECT_EQ(result["content"][0]["tool_use_id"], call_id);
      EXPECT_EQ(result["content"][0]["content"], "sunny, 24C");
      break;
    }
    case Vendor::ollama:
      EXPECT_EQ(call["tool_calls"][0]["function"]["name"], "get_weather") << request.dump();
      EXPECT_EQ(call["tool_calls"][0]["function"]["arguments"], (json{{"city", "Paris"}}));
      EXPECT_EQ(result["role"], "tool");
      EXPECT_EQ(result["content"], "sunny, 24C");
      EXPECT_EQ(result["tool_name"], "get_weather");
      break;
  }
}

class ToolRoundTrip : public ::testing::TestWithParam<Vendor> {
 protected:
  json replay(VendorSetup& s, const std::string& run_id) {
    auto stream = std::make_unique<SseClient>(
        s.agentd.port(), "GET", "/runs/" + run_id + "/events",
        std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer " + s.admin}},
        "");
    return stream->rest();
  }
  Reply weather_call(int n = 1) {
    return Reply::calling({{vendor_id(GetParam(), n), "get_weather", R"({"city":"Paris"})"}},
                          "Let me check.");
  }
};

TEST_P(ToolRoundTrip, ARunCallsATheClientAnswersAndTheModelFinishes) {
  VendorSetup s(GetParam());
  s.fake.enqueue(weather_call());
  s.fake.enqueue(Reply::answer("It is sunny in Paris.", 3));
  const std::vector<json> first = run_events(
      s, s.body("weather in Paris?", {{"session_id", "t1"}, {"tools", {weather_tool()}}}));
  EXPECT_EQ(joined_text(first), "Let me check.");
  const std::vector<json> calls = of_type(first, "tool_call");
  ASSERT_EQ(calls.size(), 1u);
  const std::string call_id = calls[0]["call_id"];
  if (GetParam() == Vendor::ollama)
    EXPECT_EQ(call_id.rfind("call_", 0), 0u) << call_id;
  else
    EXPECT_EQ(call_id, vendor_id(GetParam(), 1));
  EXPECT_EQ(calls[0]["name"], "get_weather");
  EXPECT_EQ(calls[0]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(calls[0]["executor"], "client");
  EXPECT_GT(calls[0]["seq"], first[first.size() - 3]["seq"]) << "after the text";
  EXPECT_EQ(first.back()["type"], "done");
  EXPECT_EQ(first.back()["reason"], "tool_use");
  EXPECT_EQ(first.back()["usage"]["output_tokens"], 5);
  expect_tools_sent(GetParam(), s.fake.requests()[0].json());
  EXPECT_EQ(replay(s, first.front()["run_id"]), json(first)) << "replay equals the live stream";

  // The call is pending: a run that does not answer it, or answers another, is refused.
  auto unanswered = call(s.agentd, "POST", "/run", s.admin, s.body("and?", {{"session_id", "t1"}}));
  EXPECT_EQ(unanswered.status, 400);
  EXPECT_NE(unanswered.body.find("'" + call_id + "' needs a tool_result"), std::string::npos)
      << unanswered.body;
  json wrong = s.body("", {{"session_id", "t1"}});
  wrong["messages"] = {tool_message({{call_id, "x"}, {"call_other", "y"}})};
  auto unknown = call(s.agentd, "POST", "/chat", s.admin, wrong);
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(unknown.body.find("'call_other' is not pending"), std::string::npos) << unknown.body;
  EXPECT_EQ(s.fake.request_count(), 1u) << "refused before the vendor was called";

  json answer = s.body("", {{"session_id", "t1"}, {"tools", {weather_tool()}}});
  answer["messages"] = {tool_message({{call_id, "sunny, 24C"}})};
  const std::vector<json> second = run_events(s, answer);
  EXPECT_EQ(joined_text(second), "It is sunny in Paris.");
  EXPECT_EQ(second.back()["reason"], "end_turn");
  expect_second_turn(GetParam(), s.fake.last_request().json(), call_id);

  const json stored = session_messages(s, "t1");
  ASSERT_EQ(stored.size(), 4u) << stored.dump();
  EXPECT_EQ(stored[1]["role"], "assistant");
  EXPECT_EQ(stored[1]["content"], json::array({{{"type", "text"}, {"text", "Let me check."}},
                                               {{"type", "tool_call"},
                                                {"id", call_id},
                                                {"name", "get_weather"},
                                                {"arguments", R"({"city":"Paris"})"}}}));
  EXPECT_EQ(stored[2]["role"], "tool");
  EXPECT_EQ(stored[2]["content"], json::array({{{"type", "tool_result"},
                                                {"tool_call_id", call_id},
                                                {"output", "sunny, 24C"},
                                                {"is_error", false}}}));
  EXPECT_EQ(stored[3]["content"][0]["text"], "It is sunny in Paris.");
}

TEST_P(ToolRoundTrip, ChatAnswersWithTheCallsAndThenWithTheAnswer) {
  VendorSetup s(GetParam());
  s.fake.enqueue(weather_call(2));
  s.fake.enqueue(Reply::answer("Sunny.", 1));
  auto first =
      call(s.agentd, "POST", "/chat", s.admin,
           s.body("weather in Paris?", {{"session_id", "c1"}, {"tools", {weather_tool()}}}));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.json()["reason"], "tool_use");
  EXPECT_EQ(first.json()["response"], "Let me check.");
  ASSERT_EQ(first.json()["tool_calls"].size(), 1u) << first.body;
  const json made = first.json()["tool_calls"][0];
  EXPECT_EQ(made["name"], "get_weather");
  EXPECT_EQ(made["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(made["executor"], "client");
  json answer = s.body("", {{"session_id", "c1"}, {"tools", {weather_tool()}}});
  answer["messages"] = {tool_message({{made["call_id"], "sunny, 24C"}})};
  auto second = call(s.agentd, "POST", "/chat", s.admin, answer);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["response"], "Sunny.");
  EXPECT_EQ(second.json()["reason"], "end_turn");
  EXPECT_FALSE(second.json().contains("tool_calls"));
  expect_second_turn(GetParam(), s.fake.last_request().json(), made["call_id"]);
}

// Two calls in one answer are both pending, and both must be answered.
TEST_P(ToolRoundTrip, ParallelCallsAreAllPending) {
  VendorSetup s(GetParam());
  Reply two = Reply::calling({{vendor_id(GetParam(), 1), "get_weather", R"({"city":"Paris"})"},
                              {vendor_id(GetParam(), 2), "get_weather", R"({"city":"Oslo"})"}});
  s.fake.enqueue(two);
  s.fake.enqueue(Reply::answer("Both sunny.", 1));
  auto first = call(s.agentd, "POST", "/chat", s.admin,
                    s.body("weather?", {{"session_id", "p1"}, {"tools", {weather_tool()}}}));
  ASSERT_EQ(first.status, 200) << first.body;
  const json calls = first.json()["tool_calls"];
  ASSERT_EQ(calls.size(), 2u) << first.body;
  EXPECT_EQ(calls[0]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(calls[1]["arguments"], R"({"city":"Oslo"})");
  EXPECT_NE(calls[0]["call_id"], calls[1]["call_id"]);
  json half = s.body("", {{"session_id", "p1"}, {"tools", {weather_tool()}}});
  half["messages"] = {tool_message({{calls[0]["call_id"], "sunny"}})};
  auto refused = call(s.agentd, "POST", "/chat", s.admin, half);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find(calls[1]["call_id"].get<std::string>()), std::string::npos)
      << refused.body;
  json both = half;
  both["messages"] = {tool_message({{calls[0]["call_id"], "sunny"}}),
                      tool_message({{calls[1]["call_id"], "sunny too"}})};
  auto answered = call(s.agentd, "POST", "/chat", s.admin, both);
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json()["response"], "Both sunny.");
}

// A run interrupted before its call was whole leaves nothing pending and stores no
// part of the call.
TEST_P(ToolRoundTrip, AnInterruptBeforeTheCallIsWholeLeavesNothingPending) {
  VendorSetup s(GetParam());
  Reply hang = weather_call();
  hang.kind = Reply::Kind::hang_after_headers;
  hang.after_deltas = 3;
  s.fake.enqueue(hang);
  auto stream = open_run(s.agentd, s.admin,
                         s.body("weather?", {{"session_id", "i1"}, {"tools", {weather_tool()}}}));
  ASSERT_EQ(stream->status(), 200);
  for (std::string seen; seen != "Let me check.";) {
    auto event = stream->next();
    ASSERT_TRUE(event);
    if ((*event)["type"] == "stream_delta") seen += (*event)["content"].get<std::string>();
  }
  auto stopped = call(s.agentd, "POST", "/sessions/i1/interrupt", s.admin, json::object());
  EXPECT_EQ(stopped.json()["interrupted"], true) << stopped.body;
  const std::vector<json> rest = stream->rest();
  EXPECT_TRUE(of_type(rest, "tool_call").empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  const json stored = session_messages(s, "i1");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1]["content"], json::array({{{"type", "text"}, {"text", "Let me check."}}}));
  s.fake.enqueue(Reply::answer("ok", 1));
  auto next = call(s.agentd, "POST", "/chat", s.admin, s.body("go on", {{"session_id", "i1"}}));
  EXPECT_EQ(next.status, 200) << next.body;
}

INSTANTIATE_TEST_SUITE_P(EachVendor, ToolRoundTrip,
                         ::testing::Values(Vendor::openai, Vendor::anthropic, Vendor::ollama),
                         [](const auto& info) { return std::string(vendor_name(info.param)); });

}  // namespace
}  // namespace agentrt::test
