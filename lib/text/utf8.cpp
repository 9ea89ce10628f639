#include "text/utf8.h"

#include <simdjson.h>

namespace agentrt::text {

bool is_utf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

size_t utf8_length(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string_view utf8_prefix(std::string_view text, size_t room) {
  if (text.size() <= room) return text;
  while (room > 0 && (static_cast<unsigned char>(text[room]) & 0xC0) == 0x80) --room;
  return text.substr(0, room);
}

}  // namespace agentrt::text
