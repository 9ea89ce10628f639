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
      {request({{{"role", "tool"}, {"content", "x"}}}).dump(),
       "messages[0].role 'tool' is not system, user or assistant"},
      {request({{{"role", "user"}, {"content", 5}}}).dump(),
       "messages[0].content must be an array of parts"},
      {request({{{"role", "user"}, {"content", {kText, {{"text", "x"}}}}}}).dump(),
       "messages[0].content[1] must be an object with a string 'type'"},
      {request({{{"role", "user"}, {"content", {{{"type", "text"}, {"text", 1}}}}}}).dump(),
       "messages[0].content[0].text must be a string"},
      {request({{{"role", "user"}, {"content", {{{"type", "image_url"}}}}}}).dump(),
       "messages[0].content[0].url must be a string"},
      {request({{{"role", "user"}, {"content", {{{"type", "audio"}}}}}}).dump(),
       "messages[0].content[0].type 'audio' is not text or image_url"},
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
