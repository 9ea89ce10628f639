// The UTF-8 checks and cuts (lib/text/utf8.h).
#include "text/utf8.h"

#include "tests/lib/byte_offsets.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace agentrt::text {
namespace {

// What nlohmann's parser takes as a string's UTF-8: `text` in quotes, its bytes that a
// string may not hold as they are (which UTF-8 does not judge) made plain.
bool nlohmann_takes(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text)
    quoted += c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ? 'x' : c;
  return nlohmann::json::accept(quoted + "\"");
}

TEST(Utf8, IsUtf8AgreesWithNlohmannWhereverAPieceFalls) {
  for (const std::string& piece : test::every_piece())
    for (const std::string& letter : test::letters_past_ascii())
      for (const std::string& text : test::texts_in_script(piece, letter))
        ASSERT_EQ(is_utf8(text), nlohmann_takes(text)) << test::hex(text);
  for (const std::string& bad : test::malformed_utf8())
    EXPECT_FALSE(is_utf8(bad)) << test::hex(bad);
  for (const std::string& edge : test::utf8_edges()) EXPECT_TRUE(is_utf8(edge)) << test::hex(edge);
}

TEST(Utf8, LengthCountsCharacters) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), 3u);
}

TEST(Utf8, APrefixEndsAtACharactersEnd) {
  const std::string text =
      "a\xe2\x82\xac"
      "b";  // a, the euro sign, b
  EXPECT_EQ(utf8_prefix(text, 10), text);
  EXPECT_EQ(utf8_prefix(text, 5), text);
  EXPECT_EQ(utf8_prefix(text, 4), "a\xe2\x82\xac");
  EXPECT_EQ(utf8_prefix(text, 3), "a");
  EXPECT_EQ(utf8_prefix(text, 2), "a");
  EXPECT_EQ(utf8_prefix(text, 0), "");
}

}  // namespace
}  // namespace agentrt::text
