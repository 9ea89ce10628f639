// Texts kept escaped (common/escaped_text.h): read from the engine's JSON they borrow
// it, whatever bytes they hold; escaped any other way, they are read into the one form
// nlohmann's dump() writes, so a vendor's request is the same whichever way it came.
#include "common/escaped_text.h"
#include "common/chat_request.h"
#include "common/json_scan.h"
#include "tests/providers/byte_offsets.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

// The body of a dumped string: what stands between its quotes.
std::string dumped_body(const std::string& text) {
  const std::string dumped = json(text).dump();
  return dumped.substr(1, dumped.size() - 2);
}

std::optional<EscapedText> escaped_of(const std::string& value) {
  JsonScanner scan(value);
  EscapedText out;
  if (!scan.read_escaped(out) || !scan.finish()) return std::nullopt;
  return out;
}

bool borrows(const EscapedText& text, const std::string& from) {
  const char* at = text.json().data();
  return at >= from.data() && at + text.json().size() <= from.data() + from.size();
}

TEST(EscapedText, ReadsTheFormDumpWritesInPlaceWhateverItHolds) {
  size_t checked = 0;
  for (const std::string& piece : agentrt::test::awkward_pieces())
    for (const std::string& text : agentrt::test::texts_with(piece)) {
      const std::string value = json(text).dump();
      std::optional<EscapedText> read = escaped_of(value);
      ASSERT_TRUE(read) << value;
      ASSERT_EQ(read->json(), dumped_body(text)) << value;
      ASSERT_TRUE(borrows(*read, value)) << value;
      ASSERT_EQ(read->text(), text) << value;
      ++checked;
    }
  EXPECT_GT(checked, 3000u);
}

TEST(EscapedText, ReadsOtherEscapesIntoTheFormDumpWrites) {
  const std::vector<std::string> others = {
      R"("a\/b")",         R"("caf\u00e9")",         R"("\u0041")",
      R"("\u001F")",       R"("\u000a and \u0009")", R"("\u0008\u000c\u000d")",
      R"("\ud83d\ude00")", R"("\u0022\u005c")",      R"("x\u001fy\/")",
  };
  for (const std::string& value : others) {
    std::optional<EscapedText> read = escaped_of(value);
    ASSERT_TRUE(read) << value;
    const std::string text = json::parse(value).get<std::string>();
    EXPECT_EQ(read->json(), dumped_body(text)) << value;
    EXPECT_FALSE(borrows(*read, value)) << value;
    EXPECT_EQ(read->text(), text) << value;
  }
  // The escapes dump() writes itself stay borrowed, next to the ones it does not.
  const std::string lower = R"("\u001f\u0000\"\\\b\f\n\r\t")";
  std::optional<EscapedText> read = escaped_of(lower);
  ASSERT_TRUE(read);
  EXPECT_TRUE(borrows(*read, lower));
  EXPECT_EQ(read->text(), json::parse(lower).get<std::string>());
  EXPECT_FALSE(escaped_of("5")) << "read_escaped took a number";
  EXPECT_FALSE(escaped_of(R"("\x")")) << "read_escaped took a bad escape";
}

TEST(EscapedText, OfWritesWhatDumpWritesAndRefusesWhatItRefuses) {
  for (const std::string& piece : agentrt::test::awkward_pieces())
    for (const std::string& text : agentrt::test::texts_with(piece))
      ASSERT_EQ(EscapedText::of(text).json(), dumped_body(text)) << text;
  std::string out = "kept";
  EXPECT_THROW(append_escaped(out, "ok \xff no"), json::type_error);
  EXPECT_EQ(out, "kept");
  EXPECT_THROW(EscapedText::of("\xc3"), json::type_error);
  EXPECT_EQ(EscapedText::of("a\nb"), EscapedText::borrowed("a\\nb"));
  EXPECT_NE(EscapedText::of("a\nb"), EscapedText::borrowed("a\\\\nb"));
  // A copy of an owning text is a text of its own, not a view of the first.
  EscapedText copy;
  {
    EscapedText first = EscapedText::of("gone \"soon\"");
    copy = first;
  }
  EXPECT_EQ(copy.text(), "gone \"soon\"");
}

TEST(EscapedText, JoinedTextsKeepTheirSeparatorsAndALoneTextIsBorrowed) {
  const std::string request =
      R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a\"b"},)"
      R"({"type":"image_url","url":"https://x/y.png"},{"type":"text","text":""},)"
      R"({"type":"text","text":"c\u00e9"}]},{"role":"user","content":"alone \n"}]})";
  std::optional<ChatRequest> chat = scan_chat_request(request);
  ASSERT_TRUE(chat);
  EXPECT_EQ(joined_text(chat->messages[0], "\n").text(), "a\"b\n\nc\xc3\xa9");
  EXPECT_EQ(joined_text(chat->messages[0], "\t|").json(), "a\\\"b\\t|\\t|c\xc3\xa9");
  const EscapedText alone = joined_text(chat->messages[1], "\n");
  EXPECT_EQ(alone.text(), "alone \n");
  EXPECT_TRUE(borrows(alone, request));
  EXPECT_TRUE(joined_text(ChatMessage{"user", {}}, "\n").empty());
}

}  // namespace
}  // namespace agentrt::providers
