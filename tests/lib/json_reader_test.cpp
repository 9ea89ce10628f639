// The hot paths' JSON reader (lib/text/json_reader.h): whole-text validation, the depth
// limit, and the tolerant reads the vendors' decoders use.
#include "text/json_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::text {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::element;

TEST(JsonReader, RefusesWhatIsNotJsonAnywhereInTheText) {
  JsonReader reader;
  for (const char* text :
       {"", " ", "{", "{\"a\": tru}", "[1,]", "{} {}", "\"\xff\"", "{\"a\":\"\x01\"}", "[1e400]"})
    EXPECT_NE(reader.parse(text).error(), SUCCESS) << text;
  element root;
  ASSERT_EQ(reader.parse(R"({"a":[1,{"b":null}],"c":"\u00e9"})").get(root), SUCCESS);
  EXPECT_EQ(text_or_empty(member(root, "c")), "\xc3\xa9");
}

TEST(JsonReader, PassesAByteOrderMarkThatLeadsTheText) {
  JsonReader reader;
  element root;
  ASSERT_EQ(reader.parse("\xEF\xBB\xBF{\"a\":\"b\"}").get(root), SUCCESS);
  EXPECT_EQ(text_or_empty(member(root, "a")), "b");
  EXPECT_NE(reader.parse("{\"a\":\"b\"}\xEF\xBB\xBF").error(), SUCCESS);
}

// A value inside a container is a level below it: at a depth of 3, two arrays may hold a
// number, and three an empty array.
TEST(JsonReader, RefusesNestingPastItsDepth) {
  JsonReader reader(3);
  EXPECT_EQ(reader.parse("[[1]]").error(), SUCCESS);
  EXPECT_EQ(reader.parse("[[[]]]").error(), SUCCESS);
  EXPECT_EQ(reader.parse("[[[1]]]").error(), simdjson::DEPTH_ERROR);
  // A longer text later keeps the depth.
  EXPECT_EQ(reader.parse("[[[" + std::string(5000, ' ') + "1]]]").error(), simdjson::DEPTH_ERROR);
}

TEST(JsonReader, AViewLastsUntilTheNextParse) {
  JsonReader reader;
  element root;
  ASSERT_EQ(reader.parse(std::string(R"({"t":"kept"})")).get(root), SUCCESS);
  const std::string_view text = text_or_empty(member(root, "t"));
  EXPECT_EQ(text, "kept");  // the text it was read from is gone
}

TEST(JsonReader, MembersAreReadTolerantlyWithTheLastOfTwoEqualKeys) {
  JsonReader reader;
  element root;
  ASSERT_EQ(reader.parse(R"({"a":"x","a":"y","n":null,"i":5,"o":{"k":"v"}})").get(root), SUCCESS);
  EXPECT_EQ(text_or_empty(member(root, "a")), "y");
  EXPECT_EQ(text_or_empty(member(root, "n")), "");
  EXPECT_EQ(text_or_empty(member(root, "i")), "");
  EXPECT_EQ(text_or_empty(member(root, "none")), "");
  EXPECT_EQ(text_or_empty(member(member(root, "o"), "k")), "v");
  EXPECT_EQ(member(member(root, "i"), "k").error(), simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(member(member(root, "none"), "k").error(), simdjson::NO_SUCH_FIELD);
  int64_t i = 0;
  EXPECT_EQ(member(root, "i").get(i), SUCCESS);
  EXPECT_EQ(i, 5);
}

}  // namespace
}  // namespace agentrt::text
