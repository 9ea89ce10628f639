// The one JSON string writer (lib/text/json_string.h) writes what nlohmann's serializer
// writes with invalid UTF-8 replaced, for any bytes, wherever they fall in a text.
#include "text/json_string.h"

#include "tests/lib/byte_offsets.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace agentrt::text {
namespace {

std::string json_string(const std::string& text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

std::string nlohmann_form(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(JsonString, WritesEveryPieceAtEveryOffsetAsNlohmannDoes) {
  for (const std::string& piece : test::every_piece()) {
    for (const std::string& text : test::texts_with(piece))
      ASSERT_EQ(json_string(text), nlohmann_form(text)) << test::hex(text);
    for (const std::string& letter : test::letters_past_ascii())
      for (const std::string& text : test::texts_in_script(piece, letter))
        ASSERT_EQ(json_string(text), nlohmann_form(text)) << test::hex(text);
  }
}

TEST(JsonString, WritesAnyBytesAsNlohmannDoes) {
  std::mt19937 random(20261127);
  const std::string alphabet =
      std::string("abcdefghijklmnopqrstuvwxyz ABC0123456789~\"\\\n\t\r\b\f\x01\x1f\x7f") +
      "\xc3\xa9\xe2\x80\x94\xf0\x9f\x99\x82\x80\xbf\xc0\xf5\xff\xed\xa0";
  for (int round = 0; round < 20000; ++round) {
    std::string text(random() % 70, ' ');
    // Mostly plain runs, as real text is, with the rest drawn from every kind of byte.
    for (char& c : text)
      c = random() % 4 == 0 ? alphabet[random() % alphabet.size()]
                            : static_cast<char>('a' + random() % 26);
    ASSERT_EQ(json_string(text), nlohmann_form(text)) << round;
  }
}

TEST(JsonString, AppendsAfterWhatIsThere) {
  std::string out = "{\"k\":";
  append_json_string(out, "v\n");
  EXPECT_EQ(out, "{\"k\":\"v\\n\"");
}

}  // namespace
}  // namespace agentrt::text
