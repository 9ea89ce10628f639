// Strings for the reader's and writer's eight-bytes-at-a-time paths
// (common/json_bytes.h): each awkward byte, or sequence, at every offset of plain
// text around two 8-byte blocks, so a special byte is met wherever it falls in a block,
// and next to bytes a borrow could make look special.
#pragma once

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

}  // namespace agentrt::test
