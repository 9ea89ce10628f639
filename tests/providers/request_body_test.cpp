// The vendors' request bodies: compact JSON with sorted keys, byte for byte what
// nlohmann dumps, each message in the vendor's form, and every text as it was sent.
#include "anthropic/anthropic_request.h"
#include "common/chat_request.h"
#include "ollama/ollama_request.h"
#include "openai/openai_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

const std::vector<std::function<std::string(const ChatRequest&)>> kVendors = {
    openai::request_body, anthropic::request_body,
    [](const ChatRequest& chat) { return ollama::request_body(chat); }};

json text_part(const std::string& text) {
  return {{"type", "text"}, {"text", text}};
}

// However the engine's request escaped a text, each vendor's body holds the text itself.
TEST(RequestBodies, HoldTheTextsHoweverTheRequestEscapedThem) {
  const std::string request =
      R"({"messages":[{"content":[{"text":"caf\u00e9 \u001F\/\ud83d\ude00 \n","type":"text"}],)"
      R"("role":"user"}],"model":"m"})";
  const ChatRequest chat = parse_chat_request(request);
  const std::string text = "caf\xc3\xa9 \x1f/\xf0\x9f\x98\x80 \n";
  EXPECT_EQ(json::parse(openai::request_body(chat))["messages"][0]["content"], text);
  EXPECT_EQ(json::parse(ollama::request_body(chat))["messages"][0]["content"], text);
  EXPECT_EQ(json::parse(anthropic::request_body(chat))["messages"][0]["content"][0]["text"], text);
}

// Every message shape, each role: the body is compact JSON with sorted keys, byte for
// byte what nlohmann dumps for it, and each message holds what the vendor's format
// says.
TEST(RequestBodies, AreWhatDumpWritesForEveryShapeOfMessage) {
  const std::string text = "caf\xc3\xa9 \"q\" \\ \n\x01 end";
  const json image = {{"type", "image_url"}, {"url", "data:image/png;base64,iVBORw0KGgo="}};
  const json messages = {{{"role", "system"}, {"content", {text_part("be " + text)}}},
                         {{"role", "user"}, {"content", text}},
                         {{"role", "assistant"}, {"content", {text_part(text)}}},
                         {{"role", "user"}, {"content", {text_part("")}}},
                         {{"role", "assistant"}, {"content", {text_part("a"), text_part("b")}}},
                         {{"role", "user"}, {"content", {text_part("see"), image}}},
                         {{"role", "system"}, {"content", {text_part("")}}}};
  const std::string request = json{{"model", "m"}, {"messages", messages}}.dump();
  const ChatRequest chat = parse_chat_request(request);
  for (const auto& body_of : kVendors) {
    const std::string body = body_of(chat);
    EXPECT_EQ(body, json::parse(body).dump());
  }
  const json openai = json::parse(openai::request_body(chat))["messages"];
  ASSERT_EQ(openai.size(), 7u);
  EXPECT_EQ(openai[0], json({{"content", "be " + text}, {"role", "system"}}));
  EXPECT_EQ(openai[1], json({{"content", text}, {"role", "user"}}));
  EXPECT_EQ(openai[2], json({{"content", text}, {"role", "assistant"}}));
  EXPECT_EQ(openai[3], json({{"content", ""}, {"role", "user"}}));
  EXPECT_EQ(openai[4]["content"], json::array({text_part("a"), text_part("b")}));
  EXPECT_EQ(openai[5]["content"][1]["image_url"]["url"], image["url"]);
  EXPECT_EQ(openai[6], json({{"content", ""}, {"role", "system"}}));
  const json ollama = json::parse(ollama::request_body(chat))["messages"];
  ASSERT_EQ(ollama.size(), 7u);
  EXPECT_EQ(ollama[2], json({{"content", text}, {"role", "assistant"}}));
  EXPECT_EQ(ollama[4], json({{"content", "a\nb"}, {"role", "assistant"}}));
  EXPECT_EQ(ollama[5], json({{"content", "see"}, {"images", {"iVBORw0KGgo="}}, {"role", "user"}}));
  EXPECT_EQ(ollama[6], json({{"content", ""}, {"role", "system"}}));
  const json anthropic = json::parse(anthropic::request_body(chat));
  ASSERT_EQ(anthropic["messages"].size(), 5u);  // system messages go to "system"
  EXPECT_EQ(anthropic["messages"][0], json({{"content", {text_part(text)}}, {"role", "user"}}));
  EXPECT_EQ(anthropic["messages"][1],
            json({{"content", {text_part(text)}}, {"role", "assistant"}}));
  EXPECT_EQ(anthropic["messages"][2], json({{"content", json::array()}, {"role", "user"}}));
  EXPECT_EQ(anthropic["messages"][3]["content"], json::array({text_part("a"), text_part("b")}));
  EXPECT_EQ(anthropic["messages"][4]["content"][1]["source"]["data"], "iVBORw0KGgo=");
  EXPECT_EQ(anthropic["system"], "be " + text);
}

// Text messages and messages with images in every order: every body is what dump writes
// and holds each message as it was.
TEST(RequestBodies, TextMessagesAndOthersInEveryOrderAreWhatDumpWrites) {
  const json image = {{"type", "image_url"}, {"url", "data:image/png;base64,iVBORw0KGgo="}};
  const char* const roles[] = {"user", "assistant", "system"};
  for (int pattern = 0; pattern < 32; ++pattern) {
    json messages = json::array();
    for (int i = 0; i < 5; ++i) {
      const std::string text = "m" + std::to_string(i) + " \"q\"";
      const bool with_image = (pattern >> i & 1) != 0;
      messages.push_back(
          {{"role", roles[i % 3]},
           {"content", with_image ? json::array({text_part(text), image}) : json(text)}});
    }
    const std::string request = json{{"model", "m"}, {"messages", messages}}.dump();
    const ChatRequest chat = parse_chat_request(request);
    const std::string openai_body = openai::request_body(chat);
    const std::string ollama_body = ollama::request_body(chat);
    ASSERT_EQ(openai_body, json::parse(openai_body).dump()) << pattern;
    ASSERT_EQ(ollama_body, json::parse(ollama_body).dump()) << pattern;
    const json openai = json::parse(openai_body)["messages"];
    const json ollama = json::parse(ollama_body)["messages"];
    ASSERT_EQ(openai.size(), 5u) << pattern;
    ASSERT_EQ(ollama.size(), 5u) << pattern;
    for (size_t i = 0; i < 5; ++i) {
      const std::string text = "m" + std::to_string(i) + " \"q\"";
      EXPECT_EQ(openai[i]["role"], roles[i % 3]) << pattern;
      EXPECT_EQ(ollama[i]["role"], roles[i % 3]) << pattern;
      EXPECT_EQ(ollama[i]["content"], text) << pattern;
      if ((pattern >> i & 1) != 0) {
        EXPECT_EQ(openai[i]["content"][0], text_part(text)) << pattern;
        EXPECT_EQ(ollama[i]["images"], json::array({"iVBORw0KGgo="})) << pattern;
      } else {
        EXPECT_EQ(openai[i], json({{"content", text}, {"role", roles[i % 3]}})) << pattern;
        EXPECT_EQ(ollama[i], json({{"content", text}, {"role", roles[i % 3]}})) << pattern;
      }
    }
  }
}

}  // namespace
}  // namespace agentrt::providers
