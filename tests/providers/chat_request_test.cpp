// The provider request as the plugins read it (common/chat_request.h): what the engine
// sends, each shape of message and part, and every refusal with the field it names.
#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

const std::string kAwkward = "hi \"there\" \\ caf\xc3\xa9 \xf0\x9f\x98\x80\n\x01";
const json kText = {{"type", "text"}, {"text", kAwkward}};
const json kImage = {{"type", "image_url"}, {"url", "data:image/png;base64,AA=="}};

json request(json messages) {
  return {{"model", "m"}, {"messages", std::move(messages)}};
}

TEST(ChatRequest, ReadsWhatTheEngineSends) {
  const ChatRequest chat = parse_chat_request(json{
      {"max_tokens", 7},
      {"messages",
       {{{"content", {kText, kImage}}, {"role", "user"}},
        {{"content", "plain \u00e9 string"}, {"role", "assistant"}},
        {{"content", json::array()}, {"role", "system"}}}},
      {"model", "m-1"},
      {"temperature", 0.5},
      {"a_later_engines_field", {1, 2}}}.dump());
  EXPECT_EQ(chat.model, "m-1");
  EXPECT_EQ(chat.max_tokens, 7);
  EXPECT_EQ(chat.temperature, 0.5);
  ASSERT_EQ(chat.messages.size(), 3u);
  EXPECT_EQ(chat.messages[0].role, "user");
  ASSERT_EQ(chat.messages[0].parts.size(), 2u);
  EXPECT_EQ(chat.messages[0].parts[0].kind, ContentPart::Kind::text);
  EXPECT_EQ(chat.messages[0].parts[0].text, kAwkward);
  EXPECT_EQ(chat.messages[0].parts[1].kind, ContentPart::Kind::image);
  EXPECT_EQ(chat.messages[0].parts[1].url, "data:image/png;base64,AA==");
  ASSERT_EQ(chat.messages[1].parts.size(), 1u);
  EXPECT_EQ(chat.messages[1].parts[0].text, "plain \u00e9 string");
  EXPECT_TRUE(chat.messages[2].parts.empty());
}

// The request's texts are the request's own: the text they were read from may go.
TEST(ChatRequest, OutlivesTheTextItWasReadFrom) {
  ChatRequest chat = [] {
    const std::string text = request({{{"role", "user"}, {"content", {kText}}}}).dump();
    return parse_chat_request(text);
  }();
  ChatRequest moved = std::move(chat);
  EXPECT_EQ(moved.messages[0].parts[0].text, kAwkward);
}

TEST(ChatRequest, NullOptionalsAreNone) {
  const ChatRequest chat = parse_chat_request(json{
      {"model", "m"},
      {"messages", {{{"role", "user"}, {"content", "x"}}}},
      {"max_tokens", nullptr},
      {"temperature", nullptr}}.dump());
  EXPECT_FALSE(chat.max_tokens);
  EXPECT_FALSE(chat.temperature);
}

TEST(ChatRequest, RefusesNamingWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"[1]", "not a JSON object"},
      {"{\"model\":\"m\"", "not a JSON object"},
      {json{{"messages", {{{"role", "user"}, {"content", "x"}}}}}.dump(), "'model'"},
      {json{{"model", ""}, {"messages", {{{"role", "user"}, {"content", "x"}}}}}.dump(), "'model'"},
      {json{{"model", "m"}}.dump(), "'messages' must be a non-empty array"},
      {request(json::array()).dump(), "'messages' must be a non-empty array"},
      {request({"hi"}).dump(), "messages[0] must be an object"},
      {request({{{"content", "x"}}}).dump(), "messages[0].role must be a string"},
      {request({{{"role", "developer"}, {"content", "x"}}}).dump(),
       "messages[0].role 'developer' is not system, user, assistant or tool"},
      {request({{{"role", "user"}, {"content", 5}}}).dump(),
       "messages[0].content must be an array of parts"},
      {request({{{"role", "user"}, {"content", {kText, {{"text", "x"}}}}}}).dump(),
       "messages[0].content[1] must be an object with a string 'type'"},
      {request({{{"role", "user"}, {"content", {{{"type", "text"}, {"text", 1}}}}}}).dump(),
       "messages[0].content[0].text must be a string"},
      {request({{{"role", "user"}, {"content", {{{"type", "image_url"}}}}}}).dump(),
       "messages[0].content[0].url must be a string"},
      {request({{{"role", "user"}, {"content", {{{"type", "audio"}}}}}}).dump(),
       "messages[0].content[0].type 'audio' is not text, image_url, tool_call or tool_result"},
      {request({{{"role", "assistant"},
                 {"content", {{{"type", "tool_call"}, {"id", "c"}, {"name", "f"}}}}}})
           .dump(),
       "messages[0].content[0].arguments must be a string"},
      {request({{{"role", "tool"}, {"content", {{{"type", "tool_result"}, {"output", "o"}}}}}})
           .dump(),
       "messages[0].content[0].tool_call_id must be a string"},
      {json{{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "x"}}}},
            {"tools", {{{"name", "f"}, {"parameters", "{}"}}}}}
           .dump(),
       "tools[0].parameters must be an object"},
      {json{{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "x"}}}}, {"tools", {{}}}}
           .dump(),
       "tools[0].name must be a non-empty string"},
      {json{{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "x"}}}},
            {"tool_choice", "any"}}
           .dump(),
       "'tool_choice' 'any' is not auto, none or required"},
      {json{{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "x"}}}},
            {"tool_choice", {{"type", "function"}}}}
           .dump(),
       "'tool_choice' must be"},
      {json{{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "x"}}}}, {"max_tokens", 0}}
           .dump(),
       "'max_tokens' must be a positive integer"},
      {json{{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "x"}}}},
            {"max_tokens", 1.5}}
           .dump(),
       "'max_tokens' must be a positive integer"},
      {json{{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "x"}}}},
            {"temperature", "1"}}
           .dump(),
       "'temperature' must be a number"}};
  for (const auto& [text, names] : refused) {
    try {
      parse_chat_request(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), AGENTRT_ERR_INVALID_ARGUMENT) << text;
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  }
}

// Tools, the choice among them, the model's calls and their results (ABI 1.8); each
// result learns the name of the call it answers, which some vendors ask for.
TEST(ChatRequest, ReadsToolsCallsAndResults) {
  const json call = {{"type", "tool_call"},
                     {"id", "call_1"},
                     {"name", "get_weather"},
                     {"arguments", R"({"city":"Paris"})"}};
  const json result = {
      {"type", "tool_result"}, {"tool_call_id", "call_1"}, {"output", "sunny"}, {"is_error", true}};
  const ChatRequest chat = parse_chat_request(json{
      {"model", "m"},
      {"messages",
       {{{"role", "user"}, {"content", "weather?"}},
        {{"role", "assistant"}, {"content", {kText, call}}},
        {{"role", "tool"}, {"content", {result}}}}},
      {"tools",
       {{{"name", "get_weather"},
         {"description", "d"},
         {"parameters", {{"type", "object"}, {"properties", json::object()}}}},
        {{"name", "bare"}}}},
      {"tool_choice",
       {{"type", "tool"}, {"name", "bare"}}}}.dump());
  ASSERT_EQ(chat.tools.size(), 2u);
  EXPECT_EQ(chat.tools[0].name, "get_weather");
  EXPECT_EQ(chat.tools[0].description, "d");
  EXPECT_EQ(json::parse(chat.tools[0].parameters),
            json({{"type", "object"}, {"properties", json::object()}}));
  EXPECT_EQ(chat.tools[1].description, "");
  EXPECT_EQ(chat.tools[1].parameters, R"({"type":"object"})");
  ASSERT_TRUE(chat.tool_choice);
  EXPECT_EQ(chat.tool_choice->mode, ToolChoice::Mode::tool);
  EXPECT_EQ(chat.tool_choice->name, "bare");
  const ContentPart& made = chat.messages[1].parts[1];
  EXPECT_EQ(made.kind, ContentPart::Kind::tool_call);
  EXPECT_EQ(made.id, "call_1");
  EXPECT_EQ(made.arguments, R"({"city":"Paris"})");
  EXPECT_TRUE(has_tool_calls(chat.messages[1]));
  EXPECT_FALSE(has_tool_calls(chat.messages[0]));
  ASSERT_EQ(chat.messages[2].role, "tool");
  const ContentPart& answered = chat.messages[2].parts[0];
  EXPECT_EQ(answered.kind, ContentPart::Kind::tool_result);
  EXPECT_EQ(answered.id, "call_1");
  EXPECT_EQ(answered.name, "get_weather");
  EXPECT_EQ(answered.text, "sunny");
  EXPECT_TRUE(answered.is_error);
  EXPECT_FALSE(
      parse_chat_request(request({{{"role", "user"}, {"content", "x"}}}).dump()).tool_choice);
}

TEST(ChatRequest, JoinsTheTextsOfAMessage) {
  const ChatRequest chat = parse_chat_request(
      request({{{"role", "user"},
                {"content",
                 {{{"type", "text"}, {"text", "a"}}, kImage, {{"type", "text"}, {"text", "b"}}}}}})
          .dump());
  EXPECT_EQ(joined_text(chat.messages[0], "\n"), "a\nb");
}

}  // namespace
}  // namespace agentrt::providers
