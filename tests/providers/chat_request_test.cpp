// The provider request as the plugins read it: the scanner's fast path must read every
// request it accepts exactly as nlohmann's document parser does, and leave everything
// else (each refusal included) to that parser.
#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

bool same(const ChatRequest& a, const ChatRequest& b) {
  if (a.model != b.model || a.max_tokens != b.max_tokens || a.temperature != b.temperature ||
      a.messages.size() != b.messages.size())
    return false;
  for (size_t i = 0; i < a.messages.size(); ++i) {
    const ChatMessage& x = a.messages[i];
    const ChatMessage& y = b.messages[i];
    if (x.role != y.role || x.parts.size() != y.parts.size()) return false;
    for (size_t j = 0; j < x.parts.size(); ++j)
      if (x.parts[j].kind != y.parts[j].kind || x.parts[j].text != y.parts[j].text ||
          x.parts[j].url != y.parts[j].url)
        return false;
  }
  return true;
}

// The document parser's reading of `text`, or nothing when it refuses it.
std::optional<ChatRequest> document_reading(const std::string& text) {
  try {
    return parse_chat_request_document(text);
  } catch (const sdk::Error&) {
    return std::nullopt;
  }
}

// parse_chat_request reads `text` as the document parser did, or refuses it as it did.
void expect_read_as_the_document(const std::string& text,
                                 const std::optional<ChatRequest>& document) {
  if (!document) {
    EXPECT_THROW(parse_chat_request(text), sdk::Error) << text;
    return;
  }
  EXPECT_TRUE(same(parse_chat_request(text), *document)) << text;
}

const json kText = {{"type", "text"}, {"text", "hi \"there\" \\ caf\xc3\xa9 \xf0\x9f\x98\x80"}};
const json kImage = {{"type", "image_url"}, {"url", "data:image/png;base64,AA=="}};

json request(json messages) {
  return {{"model", "m"}, {"messages", std::move(messages)}};
}

TEST(ChatRequestScan, ReadsWhatTheEngineSendsAsTheDocumentParserDoes) {
  std::vector<json> accepted = {
      request({{{"role", "user"}, {"content", {kText}}}}),
      request({{{"content", {kText, kImage}}, {"role", "user"}},
               {{"role", "assistant"}, {"content", "plain \\u00e9 string"}},
               {{"role", "system"}, {"content", json::array()}}}),
      {{"max_tokens", 7}, {"messages", {{{"role", "user"}, {"content", {kText}}}}}, {"model", "m"}},
      {{"model", "m\\u00e9"},
       {"messages", {{{"role", "user"}, {"content", {kText}}}}},
       {"max_tokens", nullptr},
       {"temperature", nullptr},
       {"newer_engine_field", {1, {{"a", 2}}}}},
      request({{{"role", "user"},
                {"name", "ignored"},
                {"content", {{{"type", "text"}, {"text", ""}, {"extra", true}}}}}}),
  };
  for (const json& body : accepted) {
    const std::string text = body.dump();
    auto scanned = scan_chat_request(text);
    ASSERT_TRUE(scanned.has_value()) << text;
    EXPECT_TRUE(same(*scanned, parse_chat_request_document(text))) << text;
    EXPECT_TRUE(same(parse_chat_request(text), *scanned)) << text;
  }
  // Pinned, so that the comparison cannot pass by both readers changing alike.
  const std::string pinned = accepted[1].dump();  // the request's texts borrow it
  auto scanned = scan_chat_request(pinned);
  ASSERT_TRUE(scanned);
  ASSERT_EQ(scanned->messages.size(), 3u);
  EXPECT_EQ(scanned->messages[0].parts[1].kind, ContentPart::Kind::image);
  EXPECT_EQ(scanned->messages[0].parts[1].url, "data:image/png;base64,AA==");
  EXPECT_EQ(scanned->messages[1].parts[0].text.text(), "plain \\u00e9 string");
  EXPECT_TRUE(scanned->messages[2].parts.empty());
}

// The scan matches the engine's own shape of a message by its fixed bytes; every message
// that strays from that shape anywhere must read, or be refused, as the document
// parser reads or refuses it.
TEST(ChatRequestScan, ReadsTheEnginesShapeAndEveryNearMissAsTheDocumentParserDoes) {
  const std::vector<std::string> messages = {
      R"({"content":[{"text":"a\"b\n","type":"text"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"assistant"})",
      R"({"content":[{"text":"","type":"text"}],"role":"system"})",
      R"( {"content":[{"text":"a","type":"text"}],"role":"user"} )",
      R"({"content": [{"text":"a","type":"text"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"text"},{"text":"b","type":"text"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"text","x":1}],"role":"user"})",
      R"({"content":[{"type":"text","text":"a"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"image_url","url":"https://x/y.png"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"users"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"tool"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"user","name":"n"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"user","role":"system"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"user","content":"b"})",
      R"({"content":[{"text":5,"type":"text"}],"role":"user"})",
      R"({"content":[{"text":"a\q","type":"text"}],"role":"user"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"\u0075ser"})",
      R"({"content":[{"text":"a","type":"text"}],"role":"user")",
      R"({"content":[{"text":"a","type":"text"}],"role":"us)",
      R"({"content":[{"text":"a","type":"text"}]})",
      R"({"role":"user","content":[{"text":"a","type":"text"}]})",
  };
  for (const std::string& message : messages) {
    const std::string text = R"({"messages":[)" + message + R"(],"model":"m"})";
    const std::optional<ChatRequest> scanned = scan_chat_request(text);
    const std::optional<ChatRequest> document = document_reading(text);
    if (scanned) {
      ASSERT_TRUE(document) << text;
      EXPECT_TRUE(same(*scanned, *document)) << text;
    }
    expect_read_as_the_document(text, document);
  }
  // Pinned: the engine's shape is read by the scan, and its role is the role alone.
  const std::string engine = R"({"messages":[)" + messages[1] + R"(],"model":"m"})";
  const std::optional<ChatRequest> scanned = scan_chat_request(engine);
  ASSERT_TRUE(scanned);
  EXPECT_EQ(scanned->messages.at(0).role, "assistant");
  ASSERT_EQ(scanned->messages.at(0).parts.size(), 1u);
  EXPECT_EQ(scanned->messages.at(0).parts[0].text.json(), "a");
}

// The scan reserves room for at most 1,024 messages and parts (ChatRequest::reserve_for);
// a request of more, and of more parts than messages, still reads whole, each message
// with its own parts, as the document parser reads it.
TEST(ChatRequestScan, ReadsMoreMessagesAndPartsThanItReservesRoomFor) {
  json messages = json::array();
  for (int i = 0; i < 1500; ++i) {
    json parts = json::array();
    for (int j = 0; j <= i % 3; ++j)
      parts.push_back({{"type", "text"}, {"text", std::to_string(i) + "." + std::to_string(j)}});
    messages.push_back({{"role", i % 2 == 0 ? "user" : "assistant"}, {"content", parts}});
  }
  const std::string text = request(messages).dump();
  const std::optional<ChatRequest> scanned = scan_chat_request(text);
  ASSERT_TRUE(scanned);
  ASSERT_EQ(scanned->messages.size(), 1500u);
  const ChatMessage& last = scanned->messages.back();
  EXPECT_EQ(last.role, "assistant");
  ASSERT_EQ(last.parts.size(), 3u);
  EXPECT_EQ(last.parts[2].text.json(), "1499.2");
  EXPECT_EQ(scanned->messages[1024].parts[1].text.json(), "1024.1");
  EXPECT_TRUE(same(*scanned, parse_chat_request_document(text)));
}

// Each of these the scanner leaves to the document parser, which reads or refuses it.
TEST(ChatRequestScan, LeavesEverythingElseToTheDocumentParser) {
  const json user = {{"role", "user"}, {"content", {kText}}};
  std::vector<std::string> others = {
      "",
      "[]",
      R"({"model":"m","messages":[{"role":"user","content":"x"}]} trailing)",
      json{{"messages", {user}}}.dump(),
      json{{"model", ""}, {"messages", {user}}}.dump(),
      json{{"model", 5}, {"messages", {user}}}.dump(),
      request(json::array()).dump(),
      request({{{"role", "tool"}, {"content", "x"}}}).dump(),
      request({{{"role", "user"}}}).dump(),
      request({{{"role", "user"}, {"content", 5}}}).dump(),
      request({{{"role", "user"}, {"content", {{{"type", "audio"}}}}}}).dump(),
      request({{{"role", "user"}, {"content", {{{"type", "text"}}}}}}).dump(),
      request({{{"role", "user"}, {"content", {{{"type", "image_url"}, {"url", 1}}}}}}).dump(),
      json{{"model", "m"}, {"messages", {user}}, {"max_tokens", 0}}.dump(),
      json{{"model", "m"}, {"messages", {user}}, {"max_tokens", 2.5}}.dump(),
      json{{"model", "m"}, {"messages", {user}}, {"temperature", 0.5}}.dump(),
      R"({"model":"a","model":"b","messages":[{"role":"user","content":"x"}]})",
      R"({"model":"m","messages":[{"role":"user","role":"system","content":"x"}]})",
  };
  for (const std::string& text : others) {
    EXPECT_FALSE(scan_chat_request(text).has_value()) << text;
    expect_read_as_the_document(text, document_reading(text));
  }
}

}  // namespace
}  // namespace agentrt::providers
