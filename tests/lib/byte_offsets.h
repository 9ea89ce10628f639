// Strings for the escaper and the UTF-8 checks (lib/text): each awkward byte, or
// sequence, at every offset of plain text, and at every byte offset of text in scripts
// past ASCII, between letters and inside one.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace agentrt::test {

// Bytes a string's JSON form must treat specially, and plain ones beside their
// values: 0x20 and 0x7F stand for themselves; '#' and ']' are one past '"' and '\'.
inline const std::vector<std::string>& awkward_pieces() {
  static const std::vector<std::string> pieces = {"\"",
                                                  "\\",
                                                  "\n",
                                                  "\t",
                                                  std::string(1, '\0'),
                                                  "\x01",
                                                  "\x1f",
                                                  " ",
                                                  "\x7f",
                                                  "#",
                                                  "]",
                                                  "!",
                                                  "[",
                                                  "\xc3\xa9",
                                                  "\xe2\x82\xac",
                                                  "\xf0\x9f\x98\x80"};
  return pieces;
}

// Every text of `plain` bytes (lengths 0 to 19) with `piece` at each offset, and with
// it twice, at an offset and at the end.
inline std::vector<std::string> texts_with(const std::string& piece, char plain = 'a') {
  std::vector<std::string> texts;
  for (size_t length = 0; length < 20; ++length)
    for (size_t at = 0; at <= length; ++at) {
      std::string text(length, plain);
      text.insert(at, piece);
      texts.push_back(text);
      texts.push_back(text + piece);
    }
  return texts;
}

// Bytes nlohmann refuses inside a string: stray continuation bytes, overlong forms,
// encoded surrogates, code points past U+10FFFF, bytes no sequence begins with, and
// sequences cut short.
inline const std::vector<std::string>& malformed_utf8() {
  static const std::vector<std::string> bytes = {"\x80",
                                                 "\xBF",
                                                 "\xC0\x80",
                                                 "\xC1\xBF",
                                                 "\xC3",
                                                 "\xC3\x28",
                                                 "\xE0\x80\x80",
                                                 "\xE0\x9F\xBF",
                                                 "\xED\xA0\x80",
                                                 "\xED\xBF\xBF",
                                                 "\xE2\x82",
                                                 "\xE2\x28\xAC",
                                                 "\xF0\x80\x80\x80",
                                                 "\xF0\x8F\xBF\xBF",
                                                 "\xF4\x90\x80\x80",
                                                 "\xF5\x80\x80\x80",
                                                 "\xFF",
                                                 "\xF0\x9F\x8C"};
  return bytes;
}

// The first and last sequences of each length and of each range with its own bounds.
inline const std::vector<std::string>& utf8_edges() {
  static const std::vector<std::string> bytes = {
      "\xC2\x80",     "\xDF\xBF",     "\xE0\xA0\x80",     "\xED\x9F\xBF",
      "\xEE\x80\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"};
  return bytes;
}

// A letter of two, three and four bytes (Cyrillic, CJK, an emoji), and the first two
// with the plain byte that parts words.
inline const std::vector<std::string>& letters_past_ascii() {
  static const std::vector<std::string> letters = {"\xD1\x8F", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80",
                                                   "\xD1\x8F ", "\xE4\xB8\xAD,"};
  return letters;
}

// Every text of 0 to 9 `letter`s with `piece` at each byte offset, between letters and
// inside one (which cuts it), and with it twice, at an offset and at the end.
inline std::vector<std::string> texts_in_script(const std::string& piece,
                                                const std::string& letter) {
  std::vector<std::string> texts;
  for (size_t letters = 0; letters < 10; ++letters) {
    std::string run;
    for (size_t i = 0; i < letters; ++i) run += letter;
    for (size_t at = 0; at <= run.size(); ++at) {
      std::string text = run;
      text.insert(at, piece);
      texts.push_back(text);
      texts.push_back(text + piece);
    }
  }
  return texts;
}

// Every piece a string may hold, well formed or not.
inline std::vector<std::string> every_piece() {
  std::vector<std::string> pieces = awkward_pieces();
  for (const auto* more : {&malformed_utf8(), &utf8_edges()})
    pieces.insert(pieces.end(), more->begin(), more->end());
  return pieces;
}

// The bytes in hex, for a failure's message.
inline std::string hex(const std::string& bytes) {
  std::string out;
  char digits[4];
  for (unsigned char c : bytes) {
    std::snprintf(digits, sizeof digits, "%02x ", c);
    out += digits;
  }
  return out;
}

}  // namespace agentrt::test
