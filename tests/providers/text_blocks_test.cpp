// Text read 32 bytes at a time (common/text_blocks.h) must end where the byte-at-a-time
// check ends, for well-formed text and malformed alike: a block that stopped past a
// malformed sequence would hand it to the vendor as text.
#include "common/text_blocks.h"
#include "byte_offsets.h"
#include "common/json_bytes.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

const unsigned char* bytes(const std::string& text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

// Where skip_text and the byte-at-a-time check stop, as offsets.
size_t blocks_end(const std::string& text) {
  return static_cast<size_t>(skip_text(bytes(text), bytes(text) + text.size()) - bytes(text));
}
size_t bytewise_end(const std::string& text) {
  return static_cast<size_t>(skip_text_bytewise(bytes(text), bytes(text) + text.size()) -
                             bytes(text));
}

using test::every_piece;
using test::hex;

TEST(TextBlocks, AreUsedOnThisMachine) {
  if (!text_blocks_supported()) GTEST_SKIP() << "no AVX2 here: only the byte-at-a-time check";
  // Russian, Chinese, emoji and Greek with spaces, each about 300 bytes, then the quote.
  for (const char* letter : {"\xD1\x8F", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\xCE\xB1 "}) {
    std::string text;
    while (text.size() < 300) text += letter;
    text += '"';
    const auto blocks =
        static_cast<size_t>(skip_text_blocks(bytes(text), bytes(text) + text.size()) - bytes(text));
    // Blocks of 32 up to the last whole one, less a letter it cut.
    EXPECT_GE(blocks, text.size() - 31 - 3) << letter;
    EXPECT_EQ(blocks_end(text), text.size() - 1) << letter;
  }
}

// Each piece, alone and followed by a quote, at every byte offset of a run of letters
// three blocks long, between letters and inside one; once, again at the end, and with
// the run again after a quote (text that is not this string's).
TEST(TextBlocks, StopWhereTheByteAtATimeCheckStopsWhateverFallsInALongRun) {
  size_t checked = 0;
  for (const std::string& letter : test::letters_past_ascii()) {
    std::string run;
    while (run.size() < 100) run += letter;
    for (const std::string& piece : every_piece())
      for (const std::string& inserted : {piece, piece + "\""})
        for (size_t at = 0; at <= run.size(); ++at) {
          std::string text = run;
          text.insert(at, inserted);
          for (const std::string& candidate : {text, text + inserted, text + "\"" + run}) {
            ASSERT_EQ(blocks_end(candidate), bytewise_end(candidate)) << hex(candidate);
            ++checked;
          }
        }
  }
  EXPECT_GT(checked, 20000u);
}

// Random texts of letters of every length, plain bytes, escapes, control characters,
// edges and, now and then, a malformed sequence or a stray byte past ASCII.
TEST(TextBlocks, StopWhereTheByteAtATimeCheckStopsOnRandomText) {
  std::mt19937 random(27);
  const std::vector<std::string> common = {
      "a", " ", "e", ".", "\xD1\x8F", "\xCE\xB1", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\x7F", "~"};
  const std::vector<std::string> rare = every_piece();
  size_t stopped_early = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string text;
    const size_t pieces = random() % 80;
    for (size_t i = 0; i < pieces; ++i) {
      const uint32_t roll = random() % 100;
      if (roll < 90)
        text += common[random() % common.size()];
      else if (roll < 98)
        text += rare[random() % rare.size()];
      else
        text += static_cast<char>(0x80 + random() % 0x80);
    }
    const size_t end = bytewise_end(text);
    ASSERT_EQ(blocks_end(text), end) << hex(text);
    if (end < text.size()) ++stopped_early;
  }
  EXPECT_GT(stopped_early, 30000u) << "the special and malformed bytes were not met";
}

// Where a JSON string's text as written ends for the scan (json_scan.cpp): short escapes
// passed, by `skip` and the caller's loop, up to the first other stop.
template <class Skip>
size_t escaped_end(const std::string& text, bool* escaped, Skip skip) {
  const unsigned char* p = bytes(text);
  const unsigned char* end = p + text.size();
  for (;;) {
    p = skip(p, end, escaped);
    if (end - p < 2 || *p != '\\' || !kShortEscape.letter[p[1]]) break;
    *escaped = true;
    p += 2;
  }
  return static_cast<size_t>(p - bytes(text));
}

// The scan's strings, escapes and all: short escapes passed inside blocks, others
// (\/, \u) and a backslash at the end left to the scan, as the byte-at-a-time loop does.
TEST(TextBlocks, PassShortEscapesAsTheScansLoopDoes) {
  std::mt19937 random(2027);
  const std::vector<std::string> common = {"a",   " ",    "\xC3\xA9", "\xD1\x8F", "\xE2\x80\x94",
                                           "\\n", "\\\"", "\\\\",     "\\t"};
  std::vector<std::string> rare = every_piece();
  for (const char* escape : {"\\/", "\\u00e9", "\\", "\\x", "\\b", "\\f", "\\r"})
    rare.push_back(escape);
  const auto bytewise = [](const unsigned char* p, const unsigned char* end, bool*) {
    return skip_text_bytewise(p, end);
  };
  size_t with_escapes = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string text;
    const size_t pieces = random() % 90;
    for (size_t i = 0; i < pieces; ++i)
      text += random() % 100 < 95 ? common[random() % common.size()] : rare[random() % rare.size()];
    bool blocks_escaped = false, bytewise_escaped = false;
    const size_t end = escaped_end(text, &bytewise_escaped, bytewise);
    ASSERT_EQ(escaped_end(text, &blocks_escaped, skip_escaped_text), end) << hex(text);
    ASSERT_EQ(blocks_escaped, bytewise_escaped) << hex(text);
    if (bytewise_escaped && end > 64) ++with_escapes;
  }
  EXPECT_GT(with_escapes, 10000u) << "few long texts with escapes were met";
}

}  // namespace
}  // namespace agentrt::providers
