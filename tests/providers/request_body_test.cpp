// The vendors' request bodies take the engine's texts as they stand escaped: whatever
// a text holds and however the request escaped it, the body is byte for byte the one
// written from the document parser's reading, and reads back as the same texts.
#include "anthropic/anthropic_request.h"
#include "common/chat_request.h"
#include "ollama/ollama_request.h"
#include "openai/openai_request.h"
#include "tests/providers/byte_offsets.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

const std::vector<std::function<std::string(const ChatRequest&)>> kVendors = {
    openai::request_body, anthropic::request_body, ollama::request_body};

// The same body from the scan's reading (texts borrowed) and the document's (escaped
// afresh); `request` must be read by the scan.
void expect_same_bodies(const std::string& request) {
  const std::optional<ChatRequest> scanned = scan_chat_request(request);
  ASSERT_TRUE(scanned) << request;
  const ChatRequest document = parse_chat_request_document(request);
  for (const auto& body_of : kVendors) ASSERT_EQ(body_of(*scanned), body_of(document)) << request;
}

json text_part(const std::string& text) {
  return {{"type", "text"}, {"text", text}};
}

TEST(RequestBodies, AreTheSameFromTheScanForEveryAwkwardText) {
  for (const std::string& piece : agentrt::test::awkward_pieces())
    for (const std::string& text : agentrt::test::texts_with(piece, 'z')) {
      const json request = {
          {"model", "m"},
          {"messages",
           {{{"role", "system"}, {"content", {text_part(text)}}},
            {{"role", "user"}, {"content", {text_part(text), text_part("and " + text)}}},
            {{"role", "assistant"}, {"content", text}}}}};
      expect_same_bodies(request.dump());
    }
}

TEST(RequestBodies, AreTheSameFromTheScanForEscapesDumpDoesNotWrite) {
  const std::string request =
      R"({"model":"m","messages":[{"role":"system","content":"sys \/ \u0041"},)"
      R"({"role":"user","content":[{"type":"text","text":"caf\u00E9 \u001F"},)"
      R"({"type":"text","text":"\ud83d\ude00 \u000a"}]},)"
      R"({"role":"assistant","content":[{"type":"text","text":"plain"}]}]})";
  expect_same_bodies(request);
  // Each such escape alone in its text, so that none rides on another's decoding.
  for (const char* text : {R"(a\/b)", R"(\u001F)", R"(\u00e9)", R"(\u000a)", R"(\ud83d\ude00)"})
    expect_same_bodies(std::string(R"({"model":"m","messages":[{"role":"user","content":")") +
                       text + R"("},{"role":"system","content":[{"type":"text","text":")" + text +
                       R"("}]}]})");
  const json openai = json::parse(openai::request_body(*scan_chat_request(request)));
  EXPECT_EQ(openai["messages"][0]["content"], "sys / A");
  EXPECT_EQ(openai["messages"][1]["content"][0]["text"], "caf\xc3\xa9 \x1f");
  EXPECT_EQ(openai["messages"][1]["content"][1]["text"], "\xf0\x9f\x98\x80 \n");
  const json anthropic = json::parse(anthropic::request_body(*scan_chat_request(request)));
  EXPECT_EQ(anthropic["system"], "sys / A");
  const json ollama = json::parse(ollama::request_body(*scan_chat_request(request)));
  EXPECT_EQ(ollama["messages"][1]["content"], "caf\xc3\xa9 \x1f\n\xf0\x9f\x98\x80 \n");
}

}  // namespace
}  // namespace agentrt::providers
