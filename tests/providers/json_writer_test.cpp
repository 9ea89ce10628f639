// The JSON text the providers write their request bodies with
// (plugins/common/json_writer.h), against nlohmann's dump of the same values.
#include "common/json_writer.h"
#include "tests/providers/byte_offsets.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

std::string written_string(const std::string& text) {
  std::string out;
  JsonWriter(out).string(text);
  return out;
}

TEST(JsonWriter, WritesNestedValuesAsNlohmannDumpsThem) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a").begin_array().integer(-7).number(0.25).boolean(false).begin_object().end_object();
  w.begin_array().end_array().string("x").end_array();
  w.key("b").begin_object().key("c").integer(9007199254740993).key("d").string("").end_object();
  w.key("e").number(3.0).key("f").number(1e-7).key("g").boolean(true);
  w.end_object();
  const json expected = {{"a", {-7, 0.25, false, json::object(), json::array(), "x"}},
                         {"b", {{"c", 9007199254740993}, {"d", ""}}},
                         {"e", 3.0},
                         {"f", 1e-7},
                         {"g", true}};
  EXPECT_EQ(out, expected.dump());
}

TEST(JsonWriter, AroundWritesOneValueWithTheCommaBeforeIt) {
  std::string out;
  JsonWriter w(out);
  w.begin_array().around("{\"a\":\"", "x\\ny", "\"}").around("[", "", "1]");
  w.begin_object().key("k").around("\"", "v", "\"").key("m").integer(2).end_object().end_array();
  EXPECT_EQ(out, R"([{"a":"x\ny"},[1],{"k":"v","m":2}])");
}

TEST(JsonWriter, EscapesStringsAsNlohmannDoes) {
  const std::vector<std::string> awkward = {
      "plain text, punctuation !#$%&'()*+,-./:;<=>?@[]^_`{|}~", "quote \" backslash \\ slash /",
      std::string("controls \b\f\n\r\t \x01 \x1f and NUL \0 here", 33),
      "2-byte \xc3\xa9, 3-byte \xe2\x82\xac, 4-byte \xf0\x9f\x98\x80",
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"};
  for (const std::string& text : awkward) EXPECT_EQ(written_string(text), json(text).dump());
}

TEST(JsonWriter, RefusesInvalidUtf8AsDumpDoes) {
  EXPECT_THROW(written_string("cut \xe2\x82"), json::type_error);
  EXPECT_THROW(written_string("stray \x80"), json::type_error);
}

// Runs of plain bytes are passed over eight at a time (json_bytes.h): wherever a byte
// to escape, or a letter past ASCII, falls, the text is what nlohmann writes.
TEST(JsonWriter, EscapesEveryAwkwardByteAtEveryOffsetAsNlohmannDoes) {
  size_t checked = 0;
  for (const std::string& piece : agentrt::test::awkward_pieces())
    for (char plain : {'a', ' ', '~'})
      for (const std::string& text : agentrt::test::texts_with(piece, plain)) {
        ASSERT_EQ(written_string(text), json(text).dump()) << json(text).dump();
        ++checked;
      }
  EXPECT_GT(checked, 10000u);
}

// Letters past ASCII are passed over as UTF-8 sequences (skip_text, json_bytes.h):
// whatever falls among them, at any byte offset, between letters or cutting one, the
// text is written as dump() writes it, or refused as dump() refuses it.
TEST(JsonWriter, WritesTextInScriptsPastAsciiAsDumpDoes) {
  std::vector<std::string> pieces = agentrt::test::awkward_pieces();
  for (const auto* more : {&agentrt::test::malformed_utf8(), &agentrt::test::utf8_edges()})
    pieces.insert(pieces.end(), more->begin(), more->end());
  size_t written = 0, refused = 0;
  for (const std::string& letter : agentrt::test::letters_past_ascii())
    for (const std::string& piece : pieces)
      for (const std::string& text : agentrt::test::texts_in_script(piece, letter)) {
        std::string dumped;
        try {
          dumped = json(text).dump();
        } catch (const json::type_error&) {
          std::string out = "kept";
          ASSERT_THROW(JsonWriter(out).string(text), json::type_error);
          ASSERT_EQ(out, "kept") << "a refused string left part of itself behind";
          ++refused;
          continue;
        }
        ASSERT_EQ(written_string(text), dumped);
        ++written;
      }
  EXPECT_GT(written, 10000u);
  EXPECT_GT(refused, 10000u);
}

TEST(JsonWriter, RefusesInvalidUtf8AtEveryOffsetAsDumpDoes) {
  for (const char* bad : {"\x80", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xff"})
    for (const std::string& text : agentrt::test::texts_with(bad)) {
      std::string out = "kept";
      EXPECT_THROW(JsonWriter(out).string(text), json::type_error);
      EXPECT_EQ(out, "kept") << "a refused string left part of itself behind";
    }
}

}  // namespace
}  // namespace agentrt::providers
