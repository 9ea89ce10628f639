// The step loop with server tools (docs/tools.md), against the real agentd: a fake
// OpenAI upstream (its real wire format) plays a model that calls tools, and the
// tool-fixture plugin (tests/fixtures/tool_fixture.cpp) is the tool server. What the
// model is sent on each step, the events, what the session keeps, and how a run ends.
#include "tests/api/server_tools_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

TEST_F(ServerToolsApi, OneServerCallAndTheModelAnswersWithItsResult) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}});
  s.fake.enqueue(Reply::calling({{"call_1", "add", R"({"a":2,"b":3})"}}, "Adding."));
  s.fake.enqueue(Reply::answer("It is 5.", 2));
  const std::vector<json> events = run_events(s, agent_body(agent, "2+3?", "st1"));

  const std::vector<json> calls = of_type(events, "tool_call");
  ASSERT_EQ(calls.size(), 1u) << json(events).dump();
  EXPECT_EQ(calls[0]["executor"], "server");
  EXPECT_EQ(calls[0]["name"], "add");
  const std::vector<json> results = of_type(events, "tool_result");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["call_id"], "call_1");
  EXPECT_EQ(results[0]["name"], "add");
  EXPECT_EQ(results[0]["output"], "5");
  EXPECT_EQ(results[0]["is_error"], false);
  EXPECT_GE(results[0]["duration_ms"].get<int64_t>(), 0);
  EXPECT_GT(results[0]["seq"], calls[0]["seq"]);
  EXPECT_EQ(joined_text(events), "Adding.It is 5.");
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(events.back()["usage"]["input_tokens"], 24) << "summed over the two steps";
  EXPECT_EQ(events.back()["usage"]["output_tokens"], 10);

  // Step 1 offered the server's tools; step 2 sent the call and its result back.
  ASSERT_EQ(s.fake.request_count(), 2u);
  const json first = s.fake.requests()[0].json();
  ASSERT_TRUE(first.contains("tools")) << first.dump();
  EXPECT_EQ(first["tools"][0]["function"]["name"], "add");
  EXPECT_EQ(first["tools"][0]["function"]["parameters"]["type"], "object");
  const json sent = s.fake.requests()[1].json()["messages"];
  ASSERT_EQ(sent.size(), 3u) << sent.dump();
  EXPECT_EQ(sent[1]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(sent[2]["role"], "tool");
  EXPECT_EQ(sent[2]["tool_call_id"], "call_1");
  EXPECT_EQ(sent[2]["content"], "5");

  // The session keeps the question, the call, its result and the answer, in order.
  const json stored = session_messages(s, "st1");
  ASSERT_EQ(stored.size(), 4u) << stored.dump();
  EXPECT_EQ(stored[1]["content"][1]["type"], "tool_call");
  EXPECT_EQ(stored[2]["role"], "tool");
  EXPECT_EQ(stored[2]["content"][0], json({{"type", "tool_result"},
                                           {"tool_call_id", "call_1"},
                                           {"output", "5"},
                                           {"is_error", false}}));
  EXPECT_EQ(stored[3]["content"][0]["text"], "It is 5.");
  // Nothing is pending: the next run needs no tool message.
  s.fake.enqueue(Reply::answer("ok", 1));
  EXPECT_EQ(chat(agent_body(agent, "thanks", "st1")).status, 200);
}

TEST_F(ServerToolsApi, TwoParallelCallsRunAtOnceAndAnswerInTheModelsOrder) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}});
  s.fake.enqueue(Reply::calling({{"call_a", "wait", R"({"ms":700})"},
                                 {"call_b", "wait", R"({"ms":700})"},
                                 {"call_c", "add", R"({"a":1,"b":1})"}}));
  s.fake.enqueue(Reply::answer("done", 1));
  const auto began = std::chrono::steady_clock::now();
  const std::vector<json> events = run_events(s, agent_body(agent, "go", "st2"));
  const auto took = std::chrono::steady_clock::now() - began;
  const std::vector<json> results = of_type(events, "tool_result");
  ASSERT_EQ(results.size(), 3u) << json(events).dump();
  EXPECT_EQ(results[0]["call_id"], "call_a");
  EXPECT_EQ(results[1]["call_id"], "call_b");
  EXPECT_EQ(results[2]["output"], "2");
  // One after the other they would take 1,400 ms at least.
  EXPECT_LT(took, std::chrono::milliseconds(1390)) << "the two waits ran at once";
  EXPECT_GT(results[0]["seq"], of_type(events, "tool_call").back()["seq"])
      << "a step's results come after its calls";
  const json sent = s.fake.requests()[1].json()["messages"];
  ASSERT_EQ(sent.size(), 5u) << sent.dump();
  EXPECT_EQ(sent[2]["tool_call_id"], "call_a");
  EXPECT_EQ(sent[3]["tool_call_id"], "call_b");
  EXPECT_EQ(sent[4]["tool_call_id"], "call_c");
}

TEST_F(ServerToolsApi, AChainOfThreeStepsSendsEveryResultOnward) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}});
  s.fake.enqueue(Reply::calling({{"call_1", "add", R"({"a":1,"b":2})"}}));
  s.fake.enqueue(Reply::calling({{"call_2", "add", R"({"a":3,"b":3})"}}));
  s.fake.enqueue(Reply::answer("6", 1));
  const json answer = chat(agent_body(agent, "sum", "st3", {{"tool_choice", "required"}})).json();
  EXPECT_EQ(answer["reason"], "end_turn") << answer.dump();
  EXPECT_EQ(answer["response"], "6") << "the last step's text";
  EXPECT_FALSE(answer.contains("tool_calls"));
  ASSERT_EQ(s.fake.request_count(), 3u);
  const json sent = s.fake.requests()[2].json()["messages"];
  ASSERT_EQ(sent.size(), 5u) << sent.dump();
  EXPECT_EQ(sent[2]["content"], "3");
  EXPECT_EQ(sent[4]["content"], "6");
  // tool_choice forces the first step's call only: the model may answer after it.
  EXPECT_EQ(s.fake.requests()[0].json()["tool_choice"], "required");
  EXPECT_EQ(s.fake.requests()[1].json()["tool_choice"], "auto");
  EXPECT_EQ(answer["usage"]["output_tokens"], 15);
}

TEST_F(ServerToolsApi, MaxStepsEndsTheRunWithTheLastCallsNotRun) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}}, {{"max_steps", 3}});
  s.fake.set_default(Reply::calling({{"call_x", "add", R"({"a":1,"b":1})"}}));
  const std::vector<json> events =
      run_events(s, agent_body(agent, "loop", "st4", {{"max_steps", 2}}));
  EXPECT_EQ(events.back()["reason"], "max_steps") << json(events).dump();
  EXPECT_EQ(s.fake.request_count(), 2u) << "the request's max_steps wins over the agent's";
  const std::vector<json> results = of_type(events, "tool_result");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["output"], "2");
  EXPECT_EQ(results[1]["output"], "not run: max_steps");
  EXPECT_EQ(results[1]["is_error"], true);
  const json stored = session_messages(s, "st4");
  EXPECT_EQ(stored.back()["role"], "tool") << stored.dump();
  // Nothing stays pending; the agent's max_steps is the default.
  const size_t before = s.fake.request_count();
  const json next = chat(agent_body(agent, "again", "st4")).json();
  EXPECT_EQ(next["reason"], "max_steps") << next.dump();
  EXPECT_EQ(s.fake.request_count() - before, 3u);
}

TEST_F(ServerToolsApi, AFailingHangingOrUnknownToolIsAnErrorTheModelReads) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}});
  s.fake.enqueue(Reply::calling({{"c_fail", "fail", "{}"},
                                 {"c_down", "down", "{}"},
                                 {"c_slow", "wait", R"({"ms":60000})"},
                                 {"c_bad", "add", "[1,2]"},
                                 {"c_none", "no_such_tool", "{}"},
                                 {"c_big", "big", R"({"bytes":100000})"}}));
  s.fake.enqueue(Reply::answer("noted", 1));
  const std::vector<json> events = run_events(s, agent_body(agent, "try", "st5"));
  EXPECT_EQ(events.back()["reason"], "end_turn") << "the run goes on";
  const std::vector<json> results = of_type(events, "tool_result");
  ASSERT_EQ(results.size(), 6u) << json(events).dump();
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(results[i]["is_error"], true) << results[i].dump();
  EXPECT_EQ(results[0]["output"], "it broke");
  EXPECT_NE(results[1]["output"].get<std::string>().find("tool server down"), std::string::npos);
  EXPECT_EQ(results[2]["output"], "timed out after 1500 ms");
  EXPECT_NE(results[3]["output"].get<std::string>().find("not a JSON object"), std::string::npos);
  EXPECT_NE(results[4]["output"].get<std::string>().find("no tool named 'no_such_tool'"),
            std::string::npos);
  // A long output is cut with a note, and is still the tool's result.
  EXPECT_EQ(results[5]["is_error"], false);
  EXPECT_NE(results[5]["output"].get<std::string>().find("[output cut at 4096 bytes]"),
            std::string::npos);
  EXPECT_LT(results[5]["output"].get<std::string>().size(), 4200u);
}

TEST_F(ServerToolsApi, AStepWithClientAndServerCallsRunsTheServersAndWaitsForTheClient) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "calc"}}});
  s.fake.enqueue(Reply::calling(
      {{"call_s", "add", R"({"a":4,"b":4})"}, {"call_c", "get_weather", R"({"city":"Oslo"})"}}));
  const json first = chat(agent_body(agent, "both", "st6", {{"tools", {weather_tool()}}})).json();
  EXPECT_EQ(first["reason"], "tool_use") << first.dump();
  ASSERT_EQ(first["tool_calls"].size(), 1u);
  EXPECT_EQ(first["tool_calls"][0]["call_id"], "call_c");
  EXPECT_EQ(first["tool_calls"][0]["executor"], "client");
  // The server's call is answered already; answering it again is refused.
  json twice = agent_body(agent, "", "st6", {{"tools", {weather_tool()}}});
  twice["messages"] = {tool_message({{"call_c", "rain"}, {"call_s", "8"}})};
  auto refused = chat(twice);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("'call_s' is not pending"), std::string::npos) << refused.body;
  json answer = agent_body(agent, "", "st6", {{"tools", {weather_tool()}}});
  answer["messages"] = {tool_message({{"call_c", "rain"}})};
  s.fake.enqueue(Reply::answer("8, and rain", 1));
  EXPECT_EQ(chat(answer).json()["response"], "8, and rain");
  const json sent = s.fake.requests().back().json()["messages"];
  ASSERT_EQ(sent.size(), 4u) << sent.dump();
  EXPECT_EQ(sent[2]["content"], "8");
  EXPECT_EQ(sent[3]["content"], "rain");
}

TEST_F(ServerToolsApi, ACallNeedingApprovalWaitsThenRunsWhenGranted) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "guarded"}}});
  s.fake.enqueue(Reply::calling({{"call_g", "g_add", R"({"a":20,"b":22})"}}));
  const std::vector<json> events = run_events(s, agent_body(agent, "add", "st7"));
  EXPECT_EQ(events.back()["reason"], "approval_required") << json(events).dump();
  const std::vector<json> asked = of_type(events, "approval_request");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["call_id"], "call_g");
  EXPECT_EQ(asked[0]["server"], "guarded");
  EXPECT_EQ(asked[0]["arguments"], R"({"a":20,"b":22})");
  EXPECT_TRUE(of_type(events, "tool_result").empty()) << "nothing ran";

  // Answered with a result instead of an approval, or not at all: refused.
  json wrong = agent_body(agent, "", "st7");
  wrong["messages"] = {tool_message({{"call_g", "42"}})};
  auto refused = chat(wrong);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("awaits approval"), std::string::npos) << refused.body;
  EXPECT_EQ(chat(agent_body(agent, "well?", "st7")).status, 400);

  s.fake.enqueue(Reply::answer("42", 1));
  json grant = agent_body(agent, "go ahead", "st7");
  grant["messages"].insert(grant["messages"].begin(), approval_message("call_g", true));
  const std::vector<json> second = run_events(s, grant);
  const std::vector<json> results = of_type(second, "tool_result");
  ASSERT_EQ(results.size(), 1u) << json(second).dump();
  EXPECT_EQ(results[0]["output"], "42");
  EXPECT_EQ(second.back()["reason"], "end_turn");
  // The model got the call's result after its call, then the user's words.
  const json sent = s.fake.requests().back().json()["messages"];
  ASSERT_EQ(sent.size(), 4u) << sent.dump();
  EXPECT_EQ(sent[2]["role"], "tool");
  EXPECT_EQ(sent[2]["content"], "42");
  EXPECT_EQ(sent[3]["role"], "user");
  // The session keeps the person's word as well as the result.
  const json stored = session_messages(s, "st7");
  EXPECT_EQ(stored[2]["content"][0]["type"], "tool_approval") << stored.dump();
  EXPECT_EQ(stored[3]["content"][0]["output"], "42");
}

TEST_F(ServerToolsApi, ADeniedCallIsAnErrorTheModelSeesAndChatListsApprovals) {
  // The agent's reference asks for approval although the server entry does not.
  const std::string agent =
      make_agent({{{"type", "mcp"}, {"server", "calc"}, {"require_approval", "always"}}});
  s.fake.enqueue(Reply::calling({{"call_d", "add", R"({"a":1,"b":1})"}}));
  const json first = chat(agent_body(agent, "add", "st8")).json();
  EXPECT_EQ(first["reason"], "approval_required") << first.dump();
  ASSERT_EQ(first["approvals"].size(), 1u);
  EXPECT_EQ(first["approvals"][0], json({{"call_id", "call_d"},
                                         {"name", "add"},
                                         {"arguments", R"({"a":1,"b":1})"},
                                         {"server", "calc"}}));
  s.fake.enqueue(Reply::answer("fine", 1));
  json deny = agent_body(agent, "", "st8");
  deny["messages"] = {approval_message("call_d", false, "not today")};
  const json second = chat(deny).json();
  EXPECT_EQ(second["response"], "fine") << second.dump();
  const json sent = s.fake.requests().back().json()["messages"];
  ASSERT_EQ(sent.size(), 3u) << sent.dump();
  EXPECT_EQ(sent[2]["content"], "denied: not today");
}

TEST_F(ServerToolsApi, AnInterruptStopsARunningToolWithinASecond) {
  const std::string agent = make_agent({{{"type", "mcp"}, {"server", "slow"}}});
  s.fake.enqueue(Reply::calling({{"call_w", "wait", R"({"ms":30000})"}}));
  auto stream = open_run(s.agentd, s.admin, agent_body(agent, "wait", "st9"));
  ASSERT_EQ(stream->status(), 200);
  for (auto event = stream->next(); event; event = stream->next())
    if ((*event)["type"] == "tool_call") break;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the step has ended
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(call(s.agentd, "POST", "/sessions/st9/interrupt", s.admin).status, 200);
  const std::vector<json> rest = stream->rest();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::milliseconds(1000));
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  const std::vector<json> results = of_type(rest, "tool_result");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["output"], "interrupted");
  // Stored as an error result: nothing is pending.
  const json stored = session_messages(s, "st9");
  EXPECT_EQ(stored.back()["content"][0]["output"], "interrupted") << stored.dump();
  EXPECT_EQ(s.fake.request_count(), 1u) << "the model is not called again";
}

}  // namespace
}  // namespace agentrt::test
