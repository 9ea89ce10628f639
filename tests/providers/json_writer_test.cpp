// The JSON text the providers write their request bodies with
// (plugins/common/json_writer.h), against nlohmann's dump of the same values.
#include "common/json_writer.h"

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

TEST(JsonWriter, EscapesStringsAsNlohmannDoes) {
  const std::vector<std::string> awkward = {
      "plain text, punctuation !#$%&'()*+,-./:;<=>?@[]^_`{|}~", "quote \" backslash \\ slash /",
      std::string("controls \b\f\n\r\t \x01 \x1f and NUL \0 here", 33),
      "2-byte \xc3\xa9, 3-byte \xe2\x82\xac, 4-byte \xf0\x9f\x98\x80",
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"};
  for (const std::string& text : awkward) EXPECT_EQ(written_string(text), json(text).dump());
}

// Every byte offset is the string writer's own test (tests/lib/json_string_test.cpp).
TEST(JsonWriter, ReplacesInvalidUtf8AsDumpsReplaceHandlerDoes) {
  for (const char* bad : {"cut \xe2\x82", "stray \x80", "\xed\xa0\x80 surrogate"})
    EXPECT_EQ(written_string(bad), json(bad).dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace
}  // namespace agentrt::providers
