// Tool fields of a run request refused with a 400 that names what is wrong, before
// anything of the run is stored (docs/tools.md): bad tools, a bad tool_choice, tool
// parts where they do not belong, and answers to calls that are not pending.
#include "tests/api/conversation_client.h"
#include "tests/api/tool_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

class ToolInput : public ::testing::Test {
 protected:
  ToolInput() : admin(first_admin_token(agentd)) {}

  // Refused with 400, the message naming `words`, and no session left behind.
  void expect_refused(json body, const std::string& words) {
    body["session_id"] = "refused";
    for (const char* route : {"/run", "/chat"}) {
      auto answer = call(agentd, "POST", route, admin, body);
      EXPECT_EQ(answer.status, 400) << route << " " << body.dump() << "\n" << answer.body;
      EXPECT_EQ(answer.json()["error"]["code"], "invalid_request") << answer.body;
      EXPECT_NE(answer.json()["error"]["message"].get<std::string>().find(words), std::string::npos)
          << answer.body;
    }
    EXPECT_EQ(call(agentd, "GET", "/sessions/refused/messages", admin).status, 404);
  }

  AgentdProcess agentd;
  std::string admin;
};

TEST_F(ToolInput, BadToolsAreRefusedNamingTheField) {
  json bad_name = weather_tool();
  bad_name["name"] = "get weather";
  expect_refused(run_body("x", {{"tools", {bad_name}}}), "tools[0].name");
  bad_name["name"] = std::string(65, 'a');
  expect_refused(run_body("x", {{"tools", {bad_name}}}), "tools[0].name");
  expect_refused(run_body("x", {{"tools", {weather_tool(), weather_tool()}}}),
                 "tool 'get_weather' is named twice");
  json bad_parameters = weather_tool();
  bad_parameters["parameters"] = "{}";
  expect_refused(run_body("x", {{"tools", {bad_parameters}}}), "tools[0].parameters");
  bad_parameters["parameters"] = {{"type", "string"}};
  expect_refused(run_body("x", {{"tools", {bad_parameters}}}), "tools[0].parameters");
  json bad_type = weather_tool();
  bad_type["type"] = "mcp";
  expect_refused(run_body("x", {{"tools", {bad_type}}}), "tools[0].type");
  json unknown = weather_tool();
  unknown["strict"] = true;
  expect_refused(run_body("x", {{"tools", {unknown}}}), "unknown field 'tools[0].strict'");
  expect_refused(run_body("x", {{"tools", weather_tool()}}), "field 'tools' must be an array");
  expect_refused(run_body("x", {{"max_steps", 0}}), "max_steps");
  expect_refused(run_body("x", {{"max_steps", 65}}), "max_steps");
}

TEST_F(ToolInput, ABadToolChoiceIsRefused) {
  expect_refused(run_body("x", {{"tools", {weather_tool()}}, {"tool_choice", "any"}}),
                 "tool_choice");
  expect_refused(
      run_body("x", {{"tools", {weather_tool()}}, {"tool_choice", {{"type", "function"}}}}),
      "tool_choice.type");
  expect_refused(run_body("x", {{"tools", {weather_tool()}},
                                {"tool_choice", {{"type", "tool"}, {"name", "get_time"}}}}),
                 "the run offers no tool 'get_time'");
  expect_refused(run_body("x", {{"tool_choice", "required"}}), "offers no tools");
}

TEST_F(ToolInput, ToolPartsOutOfPlaceAreRefused) {
  json body = run_body("x");
  body["messages"] = {tool_message({{"call_1", "sunny"}})};
  expect_refused(body, "'call_1' is not pending");

  body["messages"] = {user_text("x"), tool_message({{"call_1", "sunny"}})};
  expect_refused(body, "messages[1]': a tool message comes first");

  json call_part = {
      {"type", "tool_call"}, {"id", "call_1"}, {"name", "f"}, {"arguments", json::object()}};
  body["messages"] = {user_text("x"), {{"role", "assistant"}, {"content", {call_part}}}};
  expect_refused(body, "messages[1].content[0].arguments' must be a string");
  call_part["arguments"] = "{}";
  body["messages"] = {user_text("x"), {{"role", "assistant"}, {"content", {call_part}}}};
  expect_refused(body, "calls are the model's");
  body["messages"] = {{{"role", "user"}, {"content", {call_part}}}};
  expect_refused(body, "tool_call belongs in a message of role assistant");

  body["messages"] = {
      {{"role", "user"},
       {"content", {{{"type", "tool_result"}, {"tool_call_id", "c"}, {"output", "o"}}}}}};
  expect_refused(body, "tool_result belongs in a message of role tool");
  body["messages"] = {{{"role", "tool"}, {"content", {{{"type", "text"}, {"text", "o"}}}}}};
  expect_refused(body, "messages[0].content[0].type' must be tool_result or tool_approval");
  body["messages"] = {
      {{"role", "tool"}, {"content", {{{"type", "tool_result"}, {"tool_call_id", "c"}}}}}};
  expect_refused(body, "messages[0].content[0].output' is required");
}

// Another actor's session does not exist for a non-admin token, tool results or not:
// its pending calls are neither answered nor named.
TEST_F(ToolInput, AnotherActorsPendingCallsAreNotFound) {
  const std::string alice =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
  const std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  auto called = call(agentd, "POST", "/chat", alice,
                     run_body("call get_weather {\"city\":\"Oslo\"}",
                              {{"session_id", "alices"}, {"tools", {weather_tool()}}}));
  ASSERT_EQ(called.json()["reason"], "tool_use") << called.body;
  const std::string call_id = called.json()["tool_calls"][0]["call_id"];
  json answer = run_body("", {{"session_id", "alices"}});
  answer["messages"] = {tool_message({{call_id, "rain"}})};
  auto by_bob = call(agentd, "POST", "/chat", bob, answer);
  EXPECT_EQ(by_bob.status, 404) << by_bob.body;
  EXPECT_EQ(by_bob.body.find(call_id), std::string::npos) << by_bob.body;
  auto by_alice = call(agentd, "POST", "/chat", alice, answer);
  EXPECT_EQ(by_alice.status, 200) << by_alice.body;
  EXPECT_EQ(by_alice.json()["response"], "get_weather returned: rain");
}

// A model whose record says it takes no tools is not offered any; a plugin built before
// ABI 1.8 is treated alike (tests/plugin_host).
TEST_F(ToolInput, ToolsForAModelWithoutToolsAreRefused) {
  auto saved =
      call(agentd, "POST", "/admin/shared-providers", admin,
           {{"providers",
             {{{"name", "plain"},
               {"type", "echo"},
               {"models",
                {{{"id", "plain-echo"}, {"context_window", 4096}, {"supports_tools", false}}}}}}}});
  ASSERT_EQ(saved.status, 200) << saved.body;
  EXPECT_EQ(saved.json()["data"][0]["models"][0]["supports_tools"], false) << saved.body;
  expect_refused(run_body("x", {{"model", "plain-echo"}, {"tools", {weather_tool()}}}),
                 "model 'plain-echo' does not support tools");
  auto plain = call(agentd, "POST", "/chat", admin, run_body("x", {{"model", "plain-echo"}}));
  EXPECT_EQ(plain.status, 200) << plain.body;
}

TEST_F(ToolInput, AnAgentsToolsAndMaxStepsAreKeptAndClashesRefused) {
  auto made = call(
      agentd, "POST", "/agents", admin,
      {{"name", "forecaster"}, {"model", "echo"}, {"tools", {weather_tool()}}, {"max_steps", 4}});
  ASSERT_EQ(made.status, 201) << made.body;
  EXPECT_EQ(made.json()["tools"], json::array({weather_tool()})) << made.body;
  EXPECT_EQ(made.json()["max_steps"], 4);
  const std::string id = made.json()["id"];
  auto read = call(agentd, "GET", "/agents/" + id, admin);
  EXPECT_EQ(read.json()["tools"], json::array({weather_tool()}));

  // The agent's tools are offered to its runs without the request naming them.
  json asks = run_body("call get_weather {\"city\":\"Rome\"}", {{"agent_id", id}});
  asks.erase("model");
  auto offered = call(agentd, "POST", "/chat", admin, asks);
  EXPECT_EQ(offered.json()["reason"], "tool_use") << offered.body;
  EXPECT_EQ(offered.json()["tool_calls"][0]["arguments"], R"({"city":"Rome"})") << offered.body;

  json clash = run_body("x", {{"agent_id", id}, {"tools", {weather_tool()}}});
  clash.erase("model");
  expect_refused(clash, "tool 'get_weather' is also agent");
  json bad_agent_tool = weather_tool();
  bad_agent_tool["name"] = "a b";
  auto refused = call(agentd, "PATCH", "/agents/" + id, admin, {{"tools", {bad_agent_tool}}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("tools[0].name"), std::string::npos) << refused.body;
  auto cleared = call(agentd, "PATCH", "/agents/" + id, admin, {{"tools", nullptr}});
  EXPECT_EQ(cleared.json()["tools"], json::array()) << cleared.body;
  EXPECT_EQ(call(agentd, "PATCH", "/agents/" + id, admin, {{"max_steps", 0}}).status, 400);
}

}  // namespace
}  // namespace agentrt::test

namespace agentrt::test {
namespace {

// A provider plugin built before ABI 1.8 keeps loading and serving: it is offered no
// tools (400), and a session whose calls another model made goes on with it, the calls
// and results sent to it as text (tests/core/tool_rules_test.cpp).
TEST(ToolsAndOlderPlugins, APluginBuiltBeforeToolsIsOfferedNoneButGoesOnWithTheSession) {
  TempDir dir;
  AgentdProcess agentd(with_args(
      {"--config", dir.write("config.json", R"({"plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR
                                            R"("], "plugins": {"fixture-v1_0": {}}})")}));
  const std::string admin = first_admin_token(agentd);
  auto refused = call(agentd, "POST", "/chat", admin,
                      run_body("x", {{"model", "fixture"}, {"tools", {weather_tool()}}}));
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("model 'fixture' does not support tools"), std::string::npos);

  auto called = call(agentd, "POST", "/chat", admin,
                     run_body("call get_weather {\"city\":\"Oslo\"}",
                              {{"session_id", "mixed"}, {"tools", {weather_tool()}}}));
  ASSERT_EQ(called.status, 200) << called.body;
  ASSERT_EQ(called.json()["reason"], "tool_use") << called.body;
  json answer = run_body("", {{"session_id", "mixed"}, {"model", "fixture"}});
  answer["messages"] = {tool_message({{called.json()["tool_calls"][0]["call_id"], "rain"}})};
  auto answered = call(agentd, "POST", "/chat", admin, answer);
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json()["response"], "fixture");
}

}  // namespace
}  // namespace agentrt::test
