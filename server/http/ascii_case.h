// Comparing the tokens of HTTP (field names, codings, media types), which are ASCII and
// case-insensitive (RFC 9110 5.1, 8.3.1), without the C locale's tolower.
#pragma once

#include <cstddef>
#include <string_view>

namespace agentrt::server {

inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

}  // namespace agentrt::server
