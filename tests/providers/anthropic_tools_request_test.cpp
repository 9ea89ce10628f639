// The Anthropic body of a request with tools: the definitions as "tools" with
// "input_schema", each tool_choice in Anthropic's words, an assistant's calls as tool_use
// blocks after its text, and tool results as tool_result blocks leading the one user
// message that follows the calls.
#include "anthropic/anthropic_request.h"
#include "common/chat_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

// Named for its vendor: the unity build puts the test files in one unit.
namespace agentrt::providers::anthropic_tools_request {
namespace {

using nlohmann::json;

const json kTools = json::array({{{"name", "get_weather"},
                                  {"description", "The weather \"now\""},
                                  {"parameters",
                                   {{"properties", {{"city", {{"type", "string"}}}}},
                                    {"required", {"city"}},
                                    {"type", "object"}}}},
                                 {{"name", "now"}, {"parameters", {{"type", "object"}}}}});

std::string body_of(const json& request) {
  return anthropic::request_body(parse_chat_request(request.dump()));
}

json user(const std::string& text) {
  return {{"role", "user"}, {"content", text}};
}

json with_tools(json messages, const json& tool_choice = nullptr) {
  json request = {{"model", "m"}, {"messages", std::move(messages)}, {"tools", kTools}};
  if (!tool_choice.is_null()) request["tool_choice"] = tool_choice;
  return request;
}

TEST(AnthropicToolsRequest, ToolsAreSentWithTheirSchemaAsInputSchema) {
  EXPECT_EQ(body_of(with_tools({user("hi")})),
            R"({"max_tokens":4096,"messages":[{"content":[{"text":"hi","type":"text"}],)"
            R"("role":"user"}],"model":"m","stream":true,"tools":[{"description":)"
            R"("The weather \"now\"","input_schema":{"properties":{"city":{"type":"string"}},)"
            R"("required":["city"],"type":"object"},"name":"get_weather"},)"
            R"({"input_schema":{"type":"object"},"name":"now"}]})");
}

TEST(AnthropicToolsRequest, EachToolChoiceInAnthropicsWords) {
  const std::pair<json, json> choices[] = {
      {"auto", {{"type", "auto"}}},
      {"none", {{"type", "none"}}},
      {"required", {{"type", "any"}}},
      {{{"type", "tool"}, {"name", "now"}}, {{"name", "now"}, {"type", "tool"}}}};
  for (const auto& [choice, expected] : choices) {
    const std::string body = body_of(with_tools({user("hi")}, choice));
    EXPECT_EQ(json::parse(body)["tool_choice"], expected) << choice;
    EXPECT_EQ(body, json::parse(body).dump()) << "members in the file's order";
  }
  EXPECT_FALSE(json::parse(body_of(with_tools({user("hi")}))).contains("tool_choice"))
      << "none given: the API's default";
  json without_tools = {{"model", "m"}, {"messages", {user("hi")}}, {"tool_choice", "required"}};
  EXPECT_EQ(body_of(without_tools),
            R"({"max_tokens":4096,"messages":[{"content":[{"text":"hi","type":"text"}],)"
            R"("role":"user"}],"model":"m","stream":true})")
      << "the API refuses a tool_choice without tools";
}

json text_block(const std::string& text) {
  return {{"type", "text"}, {"text", text}};
}

json call_part(const std::string& id, const std::string& name, const std::string& arguments) {
  return {{"type", "tool_call"}, {"id", id}, {"name", name}, {"arguments", arguments}};
}

json result_part(const std::string& id, const std::string& output, bool is_error = false) {
  json part = {{"type", "tool_result"}, {"tool_call_id", id}, {"output", output}};
  if (is_error) part["is_error"] = true;
  return part;
}

json tool_use(const std::string& id, const std::string& name, const json& input) {
  return {{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}};
}

json tool_result(const std::string& id, const std::string& content, bool is_error = false) {
  json block = {{"type", "tool_result"}, {"tool_use_id", id}, {"content", content}};
  if (is_error) block["is_error"] = true;
  return block;
}

// The input is the arguments' object as the model wrote it; arguments that are no JSON
// object (the API takes none) go as {}.
TEST(AnthropicToolsRequest, AssistantCallsAreToolUseBlocksAfterItsText) {
  const json calls = {
      {"role", "assistant"},
      {"content",
       {call_part("toolu_1", "get_weather", R"({"city": "Oslo", "n": [1.50, 2e3]})"),
        text_block("Looking."), call_part("toolu_2", "now", ""), call_part("toolu_3", "now", "[1]"),
        call_part("toolu_4", "now", R"({"a":)")}}};
  const json results = {{"role", "tool"},
                        {"content",
                         {result_part("toolu_1", "sunny"), result_part("toolu_2", "noon"),
                          result_part("toolu_3", "x"), result_part("toolu_4", "y")}}};
  const std::string body = body_of(with_tools({user("weather?"), calls, results}));
  EXPECT_NE(body.find(R"("input":{"city": "Oslo", "n": [1.50, 2e3]})"), std::string::npos)
      << "the model's text, as written: " << body;
  EXPECT_EQ(json::parse(body)["messages"][1],
            json({{"role", "assistant"},
                  {"content",
                   {text_block("Looking."),
                    tool_use("toolu_1", "get_weather", {{"city", "Oslo"}, {"n", {1.50, 2e3}}}),
                    tool_use("toolu_2", "now", json::object()),
                    tool_use("toolu_3", "now", json::object()),
                    tool_use("toolu_4", "now", json::object())}}}));
}

// Anthropic wants the results in the user message right after the calls: consecutive
// tool messages and the user message after them are one user message, results first.
TEST(AnthropicToolsRequest, ResultsLeadTheOneUserMessageAfterTheCalls) {
  const json messages = {
      user("weather and time?"),
      {{"role", "assistant"},
       {"content",
        {call_part("toolu_1", "get_weather", R"({"city":"Oslo"})"),
         call_part("toolu_2", "now", "{}")}}},
      {{"role", "tool"}, {"content", {result_part("toolu_1", "sunny")}}},
      {{"role", "system"}, {"content", "Be brief."}},
      {{"role", "tool"}, {"content", {result_part("toolu_2", "clock broke", true)}}},
      {{"role", "user"}, {"content", {text_block("thanks"), text_block("")}}},
      {{"role", "assistant"}, {"content", {call_part("toolu_3", "now", "{}")}}},
      {{"role", "tool"}, {"content", {result_part("toolu_3", "noon")}}},
      {{"role", "assistant"}, {"content", "It is noon."}},
      user("bye")};
  const json body = json::parse(body_of(with_tools(messages)));
  const json expected = json::array(
      {{{"role", "user"}, {"content", {text_block("weather and time?")}}},
       {{"role", "assistant"},
        {"content",
         {tool_use("toolu_1", "get_weather", {{"city", "Oslo"}}),
          tool_use("toolu_2", "now", json::object())}}},
       {{"role", "user"},
        {"content",
         {tool_result("toolu_1", "sunny"), tool_result("toolu_2", "clock broke", true),
          text_block("thanks")}}},
       {{"role", "assistant"}, {"content", {tool_use("toolu_3", "now", json::object())}}},
       {{"role", "user"}, {"content", {tool_result("toolu_3", "noon")}}},
       {{"role", "assistant"}, {"content", {text_block("It is noon.")}}},
       {{"role", "user"}, {"content", {text_block("bye")}}}});
  EXPECT_EQ(body["messages"], expected);
  EXPECT_EQ(body["system"], "Be brief.");
}

}  // namespace
}  // namespace agentrt::providers::anthropic_tools_request
