#include "list_cursor.h"

namespace agentrt::memory_sqlite {
namespace {

// "m1" names the format, so a later change can tell old cursors apart.
constexpr std::string_view kPrefix = "m1";
constexpr size_t kDigits = 16;
constexpr char kHex[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string encode_cursor(int64_t seq) {
  std::string out(kPrefix);
  auto value = static_cast<uint64_t>(seq);
  for (int shift = static_cast<int>(kDigits - 1) * 4; shift >= 0; shift -= 4)
    out.push_back(kHex[(value >> shift) & 0xf]);
  return out;
}

std::optional<int64_t> decode_cursor(std::string_view cursor) {
  if (cursor.size() != kPrefix.size() + kDigits || cursor.substr(0, kPrefix.size()) != kPrefix)
    return std::nullopt;
  uint64_t value = 0;
  for (char c : cursor.substr(kPrefix.size())) {
    int digit = hex_value(c);
    if (digit < 0) return std::nullopt;
    value = (value << 4) | static_cast<uint64_t>(digit);
  }
  // Sequence numbers start at 1 and are positive int64 values.
  if (value == 0 || value > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace agentrt::memory_sqlite
