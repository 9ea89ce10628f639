// The JSON fast path of the stream decoders (common/json_scan.h): what it decodes,
// what it refuses, and the rule it lives by: whatever it accepts, nlohmann accepts
// too, as the same value.
#include "common/json_scan.h"
#include "tests/providers/byte_offsets.h"
#include "tests/providers/fields_check.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

using nlohmann::json;

// Reads {"v": <value>} with read_text; nullopt when the scan gave up.
std::optional<std::string> text_of(const std::string& value) {
  std::string doc = "{\"v\":" + value + "}";
  JsonScanner s(doc);
  JsonText text;
  std::string_view key;
  if (!s.enter_object() || !s.next_key(key) || !s.read_text(text) || s.next_key(key) || !s.finish())
    return std::nullopt;
  return std::string(text.view());
}

// True when the scanner passes over `doc` as one valid value.
bool skips(const std::string& doc) {
  JsonScanner s(doc);
  return s.skip_value() && s.finish();
}

bool nlohmann_accepts(const std::string& doc) {
  return !json::parse(doc, nullptr, /*allow_exceptions=*/false).is_discarded();
}

TEST(JsonScan, DecodesEveryEscape) {
  EXPECT_EQ(text_of(R"("plain")"), "plain");
  EXPECT_EQ(text_of(R"("\"\\\/\b\f\n\r\t")"), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(text_of(R"("\u0041\u00e9\u20AC")"), "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(text_of(R"("\ud83c\udf0d!")"), "\xF0\x9F\x8C\x8D!");
  EXPECT_EQ(text_of(R"("a\u0000b")"), std::string("a\0b", 3));
  EXPECT_EQ(text_of("\"raw \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8C\x8D \x7F\""),
            "raw \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8C\x8D \x7F");
}

TEST(JsonScan, NonStringsReadAsEmptyText) {
  for (const char* value : {"null", "12", "-1.5", "true", "false", "[\"a\"]", "{\"a\":\"b\"}"})
    EXPECT_EQ(text_of(value), "") << value;
}

TEST(JsonScan, RefusesBadEscapesSurrogatesAndControlCharacters) {
  for (const char* value :
       {R"("\x")", R"("\u12")", R"("\u12G4")", R"("\ud83c")", R"("\ud83cx")", R"("\ud83c\u0041")",
        R"("\udf0d")", R"("\ud83c\ud83c")", "\"tab\there\"", "\"nl\nhere\"", "\"\x01\"",
        R"("unterminated)", R"("ends in \)"})
    EXPECT_EQ(text_of(value), std::nullopt) << value;
}

TEST(JsonScan, RefusesMalformedUtf8AsNlohmannDoes) {
  for (const std::string& bytes : agentrt::test::malformed_utf8()) {
    EXPECT_EQ(text_of("\"" + bytes + "\""), std::nullopt);
    EXPECT_FALSE(nlohmann_accepts("\"" + bytes + "\""));
  }
  for (const std::string& bytes : agentrt::test::utf8_edges())
    EXPECT_EQ(text_of("\"" + bytes + "\""), bytes);
}

// Reads {"v": <value>} with read_string; nullopt when the scan refused it.
std::optional<std::string> string_of(const std::string& value) {
  std::string doc = "{\"v\":" + value + "}";
  JsonScanner s(doc);
  std::string out = "left over";
  std::string_view key;
  if (!s.enter_object() || !s.next_key(key) || !s.read_string(out) || s.next_key(key) ||
      !s.finish())
    return std::nullopt;
  return out;
}

// The key of {<key>:1} as the scan reads it; nullopt when it gave up.
std::optional<std::string> key_of(const std::string& key) {
  std::string doc = "{" + key + ":1}";
  JsonScanner s(doc);
  std::string_view read;
  if (!s.enter_object() || !s.next_key(read)) return std::nullopt;
  std::string out(read);
  if (!s.skip_value() || s.next_key(read) || !s.finish()) return std::nullopt;
  return out;
}

// Strings are passed over eight or sixteen bytes at a time (json_bytes.h), and keys and
// strings skipped take such runs inline (json_scan.h): wherever an escape, a letter past
// ASCII or a raw control character falls, the scan reads what nlohmann reads, through
// read_text, read_string, keys and skip_value alike, and refuses what it refuses.
TEST(JsonScan, ReadsEveryAwkwardByteAtEveryOffsetAsNlohmannDoes) {
  size_t checked = 0;
  for (const std::string& piece : agentrt::test::awkward_pieces())
    for (const std::string& text : agentrt::test::texts_with(piece)) {
      const std::string escaped = json(text).dump();
      ASSERT_EQ(text_of(escaped), text) << escaped;
      ASSERT_EQ(string_of(escaped), text) << escaped;
      ASSERT_EQ(key_of(escaped), text) << escaped;
      ASSERT_TRUE(skips(escaped)) << escaped;
      const std::string raw = "\"" + text + "\"";  // as it stands, escapes or not
      const bool accepted = nlohmann_accepts(raw);
      ASSERT_EQ(text_of(raw).has_value(), accepted) << escaped;
      ASSERT_EQ(key_of(raw).has_value(), accepted) << escaped;
      ASSERT_EQ(skips(raw), accepted) << escaped;
      if (accepted) {
        ASSERT_EQ(text_of(raw), json::parse(raw).get<std::string>()) << escaped;
        ASSERT_EQ(key_of(raw), json::parse(raw).get<std::string>()) << escaped;
      }
      ++checked;
    }
  EXPECT_GT(checked, 3000u);
  EXPECT_EQ(string_of("7"), std::nullopt) << "read_string took a number";
}

using agentrt::test::every_piece;
using agentrt::test::hex;

// A run of letters past ASCII is passed over as UTF-8 sequences (skip_text,
// json_bytes.h): whatever falls among them, at any byte offset, between letters or
// cutting one, the scan refuses what nlohmann refuses and reads what it reads.
TEST(JsonScan, ReadsTextInScriptsPastAsciiAsNlohmannDoes) {
  size_t checked = 0, refused = 0;
  for (const std::string& letter : agentrt::test::letters_past_ascii())
    for (const std::string& piece : every_piece())
      for (const std::string& text : agentrt::test::texts_in_script(piece, letter)) {
        const std::string raw = "\"" + text + "\"";
        const bool accepted = nlohmann_accepts(raw);
        ASSERT_EQ(text_of(raw).has_value(), accepted) << hex(text);
        ASSERT_EQ(skips(raw), accepted) << hex(text);
        ++checked;
        if (!accepted) {
          ++refused;
          continue;
        }
        const std::string value = json::parse(raw).get<std::string>();
        ASSERT_EQ(text_of(raw), value) << hex(text);
        ASSERT_EQ(string_of(raw), value) << hex(text);
        ASSERT_EQ(text_of(json(text).dump()), text) << hex(text);
      }
  EXPECT_GT(checked, 30000u);
  EXPECT_GT(refused, checked / 3) << "the malformed pieces were not met";
}

TEST(JsonScan, ReadsIntegersAndLeavesTheRestToNlohmann) {
  auto int_of = [](const std::string& value) -> std::optional<std::optional<int64_t>> {
    std::string doc = "{\"v\":" + value + "}";
    JsonScanner s(doc);
    std::optional<int64_t> out = -99;
    std::string_view key;
    if (!s.enter_object() || !s.next_key(key) || !s.read_int(out) || s.next_key(key) || !s.finish())
      return std::nullopt;
    return out;
  };
  using Read = std::optional<std::optional<int64_t>>;
  EXPECT_EQ(int_of("0"), Read(0));
  EXPECT_EQ(int_of("-0"), Read(0));
  EXPECT_EQ(int_of("42"), Read(42));
  EXPECT_EQ(int_of("-17"), Read(-17));
  EXPECT_EQ(int_of("999999999999999999"), Read(999999999999999999));
  const Read absent = std::optional<int64_t>();  // read, as "not there"
  EXPECT_EQ(int_of("1.5"), absent);              // a number, but not an integer
  EXPECT_EQ(int_of("\"7\""), absent);
  EXPECT_EQ(int_of("null"), absent);
  // nlohmann reads these as unsigned, floating point, or refuses an overflow.
  EXPECT_EQ(int_of("9223372036854775807"), std::nullopt);
  EXPECT_EQ(int_of("1e3"), std::nullopt);
  EXPECT_EQ(int_of("1E400"), std::nullopt);
  for (const char* bad : {"01", "-", "1.", ".5", "+1", "0x10", "1.e2", "--1", "NaN", "Infinity"})
    EXPECT_EQ(int_of(bad), std::nullopt) << bad;
}

TEST(JsonScan, KeysAreDecodedBeforeTheyAreCompared) {
  std::string doc = R"({"\u0063ontent":"x","a\"b":1})";
  JsonScanner s(doc);
  std::string_view key;
  ASSERT_TRUE(s.enter_object());
  ASSERT_TRUE(s.next_key(key));
  EXPECT_EQ(key, "content");
  ASSERT_TRUE(s.skip_value());
  ASSERT_TRUE(s.next_key(key));
  EXPECT_EQ(key, "a\"b");
  ASSERT_TRUE(s.skip_value());
  EXPECT_FALSE(s.next_key(key));
  EXPECT_TRUE(s.finish());
}

// A key that is a plain word right before its colon is taken as it stands; every other
// key goes the long way. Both must read what nlohmann reads, and refuse what it refuses.
TEST(JsonScan, KeysOfPlainWordsReadAsAnyOtherKey) {
  const std::vector<std::string> docs = {
      R"({"role":1,"max_tokens":2,"a-b":3,"":4,"Z9_":5})",
      "{\"a\" :1,\"b\"\t:2}",
      R"({"a b":1,"\u0061":2,"\u00e9t\u00e9":3,"x\/y":5,"caf)"
      "\xc3\xa9"
      R"(":4})",
      R"({"a":{"b":{"c":[{"d":1}]}}})",
  };
  for (const std::string& doc : docs) {
    std::vector<std::string> keys;
    JsonScanner s(doc);
    std::function<void()> walk = [&] {
      if (s.peek() == '{') {
        s.members([&](std::string_view key) {
          keys.emplace_back(key);
          walk();
        });
      } else if (s.enter_array()) {
        while (s.next_element()) walk();
      } else {
        s.skip_value();
      }
    };
    walk();
    ASSERT_TRUE(s.finish()) << doc;
    std::vector<std::string> expected;
    std::function<void(const json&)> collect = [&](const json& value) {
      if (value.is_object())
        for (const auto& [key, member] : value.items()) {
          expected.push_back(key);
          collect(member);
        }
      if (value.is_array())
        for (const json& element : value) collect(element);
    };
    // nlohmann sorts an object's members; the scan reads them in order.
    collect(json::parse(doc));
    std::vector<std::string> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sorted, expected) << doc;
  }
  for (const char* doc : {R"({"a")", R"({"a"})", R"({"a":)", R"({"a"x:1})", R"({"a\":1})"})
    EXPECT_FALSE(skips(doc)) << doc;
}

TEST(JsonScan, ConsumesOnlyBytesThatMatchAndGoesBackOnlyWhereItWas) {
  JsonScanner s(R"( {"a":[1]})");
  const char* start = s.position();
  EXPECT_FALSE(s.consume(R"({"b")"));
  EXPECT_EQ(s.peek(), '{') << "a mismatch consumed something";
  EXPECT_TRUE(s.consume(R"({"a":[)"));
  EXPECT_FALSE(s.consume("1]}x")) << "matched past the end";
  s.rewind(start);
  EXPECT_TRUE(s.skip_value());
  EXPECT_TRUE(s.finish());
  JsonScanner failed(R"("\q")");
  EXPECT_FALSE(failed.skip_value());
  EXPECT_FALSE(failed.consume("")) << "consumed after a failure";
}

TEST(JsonScan, ValidatesStructure) {
  for (const char* doc : {"{}", "[]", " {\"a\" : [1, {\"b\":null}, \"c\", true, false, -0.5]} ",
                          "\t\r\n{}\n", "[[[[]]]]", "\"s\"", "0", "null"})
    EXPECT_TRUE(skips(doc)) << doc;
  for (const char* doc :
       {"",     " ",   "{",         "}",          "{\"a\"}",  "{\"a\":}", "{\"a\":1,}",    "[1,]",
        "[,1]", "{,}", "{\"a\" 1}", "{a:1}",      "{'a':1}",  "[1 2]",    "{} {}",         "{}x",
        "nul",  "tru", "[1]]",      "{\"a\":1}}", "// c\n{}", "{/*c*/}",  "\xEF\xBB\xBF{}"})
    EXPECT_FALSE(skips(doc)) << doc;
}

TEST(JsonScan, GivesUpBeyondItsDepthLimit) {
  std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_FALSE(skips(deep));
  EXPECT_TRUE(nlohmann_accepts(deep));  // so the decoder's nlohmann path reads it
  EXPECT_TRUE(skips(std::string(60, '[') + std::string(60, ']')));
}

TEST(JsonScan, AfterAFailureEveryCallFails) {
  JsonScanner s(R"({"a":"\q","b":1})");
  std::string_view key;
  ASSERT_TRUE(s.enter_object());
  ASSERT_TRUE(s.next_key(key));
  EXPECT_FALSE(s.skip_value());
  EXPECT_FALSE(s.next_key(key));
  EXPECT_EQ(s.peek(), '\0');
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.finish());
}

// The value the scanner reads, as nlohmann would hold it; numbers with a fraction
// (which the scanner only tells apart from integers) become null.
json value_of(JsonScanner& s) {
  switch (s.peek()) {
    case '{': {
      json object = json::object();
      s.members([&](std::string_view key) {
        std::string name(key);  // the next key read reuses the buffer
        json value = value_of(s);
        object[name] = std::move(value);  // a repeated key: the last one counts
      });
      return object;
    }
    case '[': {
      json array = json::array();
      s.enter_array();
      while (s.next_element()) array.push_back(value_of(s));
      return array;
    }
    case '"': {
      JsonText text;
      s.read_text(text);
      return std::string(text.view());
    }
    case 't':
    case 'f': {
      std::optional<bool> b;
      s.read_bool(b);
      return b.value_or(false);
    }
    case 'n':
      s.skip_value();
      return nullptr;
    default: {
      std::optional<int64_t> n;
      s.read_int(n);
      return n ? json(*n) : json(nullptr);
    }
  }
}

json without_fractions(json value) {
  if (value.is_number_float()) return nullptr;
  if (value.is_structured())
    for (json& item : value) item = without_fractions(item);
  return value;
}

// The rule the decoders rely on, over many generated near-JSON texts: whatever the
// scanner accepts, nlohmann accepts too, as the same value.
TEST(JsonScan, ReadsWhatNlohmannReadsAndNothingItRefuses) {
  const std::vector<std::string> seeds = {
      R"({"id":"c1","choices":[{"index":0,"delta":{"content":"H\u00e9 \"x\"\n"},"finish_reason":null}],"usage":{"prompt_tokens":3}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83c\udf0d"}})",
      "{\"message\":{\"content\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"},\"done\":true,\"n\":-12.5}",
      R"([1,-0,0.25,true,false,null,{},[],"\/\b\f\r\t",{"\u0061":1,"a":2}])"};
  size_t accepted = 0;
  for (const std::string& doc : test::mutations(seeds, 40000)) {
    JsonScanner s(doc);
    json read = value_of(s);
    if (!s.finish()) continue;
    ++accepted;
    json reference = json::parse(doc, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(reference.is_discarded()) << doc;
    ASSERT_EQ(read, without_fractions(reference)) << doc;
  }
  EXPECT_GT(accepted, 5000u);  // the mutations leave plenty of valid texts to compare
}

}  // namespace
}  // namespace agentrt::providers
