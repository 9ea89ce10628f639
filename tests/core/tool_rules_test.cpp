// The engine's side of client tools (docs/tools.md): the calls a session leaves
// pending and the answers a run must give, the model's answer as the session keeps it,
// a context that keeps calls with their results, and the request a provider is sent,
// with tools, and without them for a model that takes none.
#include "core/domain/errors.h"
#include "core/runs/provider_request.h"
#include "core/runs/run_request.h"
#include "core/runs/tool_answers.h"
#include "tests/core/message_util.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::core {
namespace {

using nlohmann::json;
using test_util::message_of;

json text_part(const std::string& text) {
  return {{"text", text}, {"type", "text"}};
}

json call_part(const std::string& id, const std::string& name = "get_weather") {
  return {{"arguments", R"({"city":"Paris"})"}, {"id", id}, {"name", name}, {"type", "tool_call"}};
}

json result_part(const std::string& id, const std::string& output = "sunny") {
  return {{"is_error", false}, {"output", output}, {"tool_call_id", id}, {"type", "tool_result"}};
}

StoredMessage user(const std::string& text, int64_t tokens = -1) {
  StoredMessage m = message_of("user", json::array({text_part(text)}));
  if (tokens >= 0) m.tokens = tokens;
  return m;
}

// Throws the DomainError's message, or "" when nothing was refused.
template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const DomainError& e) {
    return e.what();
  }
  return "";
}

TEST(ToolAnswers, TheLastAssistantMessagesCallsArePendingUntilAnswered) {
  const StoredMessage calls = message_of(
      "assistant",
      json::array({text_part("let me look"), call_part("c1"), call_part("c2", "get_time")}));
  EXPECT_TRUE(calls.has_tool_parts);
  std::vector<ToolCall> pending = pending_calls(std::vector<StoredMessage>{user("q"), calls});
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].id, "c1");
  EXPECT_EQ(pending[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(pending[1].name, "get_time");

  const StoredMessage one_answer = message_of("tool", json::array({result_part("c1")}));
  pending = pending_calls(std::vector<StoredMessage>{user("q"), calls, one_answer});
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, "c2");
  EXPECT_TRUE(
      pending_calls(std::vector<StoredMessage>{user("q"), calls, user("moved on")}).empty());
  EXPECT_TRUE(pending_calls(std::vector<StoredMessage>{}).empty());
}

TEST(ToolAnswers, ARunAnswersEveryPendingCallAndNothingElse) {
  const std::vector<ToolCall> pending = {{"c1", "f", "{}"}, {"c2", "g", "{}"}};
  const StoredMessage both =
      message_of("tool", json::array({result_part("c1"), result_part("c2")}));
  EXPECT_EQ(refusal([&] { check_answers(pending, {both, user("and then?")}); }), "");
  // Several consecutive tool messages answer alike.
  EXPECT_EQ(refusal([&] {
              check_answers(pending, {message_of("tool", json::array({result_part("c2")})),
                                      message_of("tool", json::array({result_part("c1")}))});
            }),
            "");
  const std::string missing = refusal(
      [&] { check_answers(pending, {message_of("tool", json::array({result_part("c1")}))}); });
  EXPECT_NE(missing.find("pending tool call 'c2' needs a tool_result"), std::string::npos)
      << missing;
  EXPECT_NE(refusal([&] { check_answers(pending, {user("ignoring them")}); }).find("'c1', 'c2'"),
            std::string::npos);
  const std::string unknown = refusal([&] {
    check_answers(pending, {message_of("tool", json::array({result_part("c1"), result_part("c2"),
                                                            result_part("c9")}))});
  });
  EXPECT_NE(unknown.find("'c9' is not pending"), std::string::npos) << unknown;
  const std::string twice = refusal([&] {
    check_answers(pending, {message_of("tool", json::array({result_part("c1"), result_part("c1"),
                                                            result_part("c2")}))});
  });
  EXPECT_NE(twice.find("'c1' is answered twice"), std::string::npos) << twice;
  const std::string none =
      refusal([&] { check_answers({}, {message_of("tool", json::array({result_part("c1")}))}); });
  EXPECT_NE(none.find("the session has no pending tool calls"), std::string::npos) << none;
}

TEST(ToolAnswers, TheAnswerKeepsItsTextThenItsCalls) {
  const StoredMessage answer =
      answer_message("checking", {{"call_1", "get_weather", R"({"city":"Oslo"})"}});
  EXPECT_EQ(answer.role, "assistant");
  EXPECT_EQ(json::parse(answer.content_text.str()),
            json::array({text_part("checking"),
                         {{"arguments", R"({"city":"Oslo"})"},
                          {"id", "call_1"},
                          {"name", "get_weather"},
                          {"type", "tool_call"}}}));
  EXPECT_TRUE(answer.has_tool_parts);
  StoredMessage read_back{"assistant", answer.content_text};
  estimate_stored(read_back);
  EXPECT_EQ(read_back.tokens, answer.tokens) << "made and read back, the estimate is the same";
  EXPECT_EQ(json::parse(answer_message("", {{"c", "f", "{}"}}).content_text.str()).size(), 1u);
  EXPECT_FALSE(answer_message("plain", {}).has_tool_parts);
}

// Trimming drops the oldest turns, but never a call whose result the new messages
// carry: the turn that made it goes from its user message on, even past the room.
TEST(ToolAnswers, TrimmingKeepsTheCallsTheNewMessagesAnswer) {
  StoredMessage calls = message_of("assistant", json::array({call_part("c1")}));
  calls.tokens = 50;
  const std::vector<StoredMessage> history = {user("old", 400), user("asks", 10), calls};
  const StoredMessage answer = message_of("tool", json::array({result_part("c1")}));
  const RunContext context = fit_context(history, {answer}, 200, 60);
  ASSERT_EQ(context.history.size(), 2u);
  EXPECT_EQ(context.history[0].role, "user");
  EXPECT_EQ(context.history[1].role, "assistant");
  // Without answers the same history is trimmed as before.
  EXPECT_EQ(fit_context(history, {user("new")}, 60, 10).history.size(), 0u);
  // A history of tool turns never starts with an assistant or a tool message.
  const std::vector<StoredMessage> turns = {user("q", 300), calls, answer, user("next", 5)};
  const RunContext later = fit_context(turns, {user("again")}, 200, 60);
  ASSERT_EQ(later.history.size(), 1u);
  EXPECT_EQ(later.history[0].role, "user");
  const std::string too_big = refusal([&] { fit_context(history, {answer}, 100, 60); });
  EXPECT_NE(too_big.find("and the calls it answers"), std::string::npos) << too_big;
}

TEST(ToolRequest, TheProviderIsSentTheToolsAndTheChoice) {
  RunContext context;
  context.fresh = {user("weather?")};
  const std::vector<ToolSpec> tools = {{"get_weather", "The weather", R"({"type":"object"})"},
                                       {"bare", "", R"({"type":"object"})"}};
  const json sent = json::parse(provider_request(context, "m", std::nullopt, std::nullopt, true,
                                                 {&tools, ToolChoice{"tool", "bare"}, true}));
  EXPECT_EQ(sent["tools"], json::parse(R"([
      {"description":"The weather","name":"get_weather","parameters":{"type":"object"},
       "type":"function"},
      {"name":"bare","parameters":{"type":"object"},"type":"function"}])"));
  EXPECT_EQ(sent["tool_choice"], (json{{"name", "bare"}, {"type", "tool"}}));
  const json automatic = json::parse(provider_request(context, "m", std::nullopt, std::nullopt,
                                                      true, {&tools, std::nullopt, true}));
  EXPECT_FALSE(automatic.contains("tool_choice"));
  const json none = json::parse(provider_request(context, "m", std::nullopt, std::nullopt, true,
                                                 {&tools, ToolChoice{"none", ""}, true}));
  EXPECT_EQ(none["tool_choice"], "none");
  EXPECT_EQ(
      provider_request(context, "m", std::nullopt, std::nullopt),
      json({{"messages", {{{"content", json::array({text_part("weather?")})}, {"role", "user"}}}},
            {"model", "m"}})
          .dump());
}

// A plugin built before ABI 1.8 is sent no tools, and a session's tool parts as text,
// its tool messages as the user's: its past is not to fail every later run.
TEST(ToolRequest, AModelWithoutToolsIsSentThePartsAsText) {
  RunContext context;
  context.history = std::vector<StoredMessage>{
      user("weather?"),
      message_of("assistant", json::array({text_part("looking"), call_part("c1")}))};
  context.fresh = {message_of("tool", json::array({result_part("c1")}))};
  const std::vector<ToolSpec> tools = {{"get_weather", "", R"({"type":"object"})"}};
  const json sent = json::parse(provider_request(context, "m", std::nullopt, std::nullopt, true,
                                                 {&tools, std::nullopt, false}));
  EXPECT_FALSE(sent.contains("tools"));
  EXPECT_EQ(
      sent["messages"][1]["content"],
      json::array({text_part("looking"),
                   text_part(R"([called tool get_weather with {"city":"Paris"} (call c1)])")}));
  EXPECT_EQ(sent["messages"][2]["role"], "user");
  EXPECT_EQ(sent["messages"][2]["content"],
            json::array({text_part("[result of tool call c1: sunny]")}));
}

TEST(ToolRequest, ARunRequestKeepsToolsAndResultsInTheStoresForm) {
  const RunRequest request = parse_run_request(json{
      {"model", "m"},
      {"messages",
       {{{"role", "tool"},
         {"content",
          {{{"type", "tool_result"}, {"tool_call_id", "c1"}, {"output", "sunny"}},
           {{"type", "tool_result"},
            {"tool_call_id", "c2"},
            {"output", "no such city"},
            {"is_error", true}}}}},
        {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "thanks"}}}}}}},
      {"tools",
       {{{"type", "function"},
         {"name", "get_weather"},
         {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}},
      {"tool_choice", "required"},
      {"max_steps", 3}}.dump());
  ASSERT_EQ(request.tools.size(), 1u);
  EXPECT_EQ(request.tools[0].parameters, R"({"properties":{},"type":"object"})")
      << "the schema as written, compact";
  EXPECT_EQ(request.tool_choice->mode, "required");
  EXPECT_EQ(request.max_steps, 3);
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_TRUE(request.messages[0].has_tool_parts);
  EXPECT_EQ(json::parse(request.messages[0].content_text.str()),
            json::array({result_part("c1"),
                         {{"is_error", true},
                          {"output", "no such city"},
                          {"tool_call_id", "c2"},
                          {"type", "tool_result"}}}));
  StoredMessage read_back{"tool", request.messages[0].content_text};
  estimate_stored(read_back);
  EXPECT_EQ(read_back.tokens, request.messages[0].tokens);
}

}  // namespace
}  // namespace agentrt::core
