// Cutting UTF-8 text to a byte budget without splitting a character.
#pragma once

#include <cstddef>
#include <string_view>

namespace agentrt::core {

// The longest start of `text` of at most `room` bytes that ends at a character's end.
inline std::string_view utf8_prefix(std::string_view text, size_t room) {
  if (text.size() <= room) return text;
  while (room > 0 && (static_cast<unsigned char>(text[room]) & 0xC0) == 0x80) --room;
  return text.substr(0, room);
}

}  // namespace agentrt::core
