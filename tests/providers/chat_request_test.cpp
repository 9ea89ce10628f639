// The provider request as the plugins read it: the scanner's fast path must read every
// request it accepts exactly as nlohmann's document parser does, and leave everything
// else (each refusal included) to that parser.
#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
    bool document_refuses = false;
    ChatRequest read;
    try {
      read = parse_chat_request_document(text);
    } catch (const sdk::Error&) {
      document_refuses = true;
    }
    if (document_refuses) {
      EXPECT_THROW(parse_chat_request(text), sdk::Error) << text;
    } else {
      EXPECT_TRUE(same(parse_chat_request(text), read)) << text;
    }
  }
}

}  // namespace
}  // namespace agentrt::providers
