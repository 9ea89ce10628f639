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

// kMaxDepth containers may hold a value; one more is refused.
TEST(JsonReader, RefusesNestingPastItsDepth) {
  JsonReader reader;
  const std::string deepest(kMaxDepth, '[');
  EXPECT_EQ(reader.parse(deepest + "1" + std::string(kMaxDepth, ']')).error(), SUCCESS);
  EXPECT_EQ(reader.parse("[" + deepest + "1" + std::string(kMaxDepth + 1, ']')).error(),
            simdjson::DEPTH_ERROR);
  // A text too long for the thread's parser keeps the depth too.
  const std::string padding(JsonReader::kThreadTextBytes, ' ');
  EXPECT_EQ(reader.parse("[" + deepest + "1" + padding + std::string(kMaxDepth + 1, ']')).error(),
            simdjson::DEPTH_ERROR);
}

// The thread's parser goes to one reader at a time: a second reader alive at once reads
// with its own, and neither's views change under the other's parses.
TEST(JsonReader, ReadersAliveAtOnceReadApart) {
  JsonReader first, second;
  element a, b;
  ASSERT_EQ(first.parse(R"({"t":"first"})").get(a), SUCCESS);
  ASSERT_EQ(second.parse(R"({"t":"second"})").get(b), SUCCESS);
  EXPECT_EQ(text_or_empty(member(a, "t")), "first");
  EXPECT_EQ(text_or_empty(member(b, "t")), "second");
  {
    JsonReader third;
    element c;
    ASSERT_EQ(third.parse(R"({"t":"third"})").get(c), SUCCESS);
    EXPECT_EQ(text_or_empty(member(c, "t")), "third");
  }
  EXPECT_EQ(text_or_empty(member(a, "t")), "first");
  EXPECT_EQ(text_or_empty(member(b, "t")), "second");
}

// Texts longer than the thread's parser takes are read whole, by the reader's own.
TEST(JsonReader, ReadsTextsLongerThanTheThreadsParserTakes) {
  JsonReader reader;
  const std::string long_text(JsonReader::kThreadTextBytes * 3, 'x');
  element root;
  ASSERT_EQ(reader.parse(R"({"t":")" + long_text + R"("})").get(root), SUCCESS);
  EXPECT_EQ(text_or_empty(member(root, "t")), long_text);
  ASSERT_EQ(reader.parse(R"({"t":"short"})").get(root), SUCCESS);
  EXPECT_EQ(text_or_empty(member(root, "t")), "short");
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
