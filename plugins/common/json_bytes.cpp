#include "common/json_bytes.h"

namespace agentrt::providers {
namespace {

bool in(unsigned char c, unsigned char low, unsigned char high) {
  return c >= low && c <= high;
}

}  // namespace

size_t utf8_length(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  const size_t left = static_cast<size_t>(end - p);
  if (in(c, 0xC2, 0xDF)) return left >= 2 && in(p[1], 0x80, 0xBF) ? 2 : 0;
  if (in(c, 0xE0, 0xEF)) {
    if (left < 3 || !in(p[2], 0x80, 0xBF)) return 0;
    unsigned char low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
    return in(p[1], low, high) ? 3 : 0;
  }
  if (in(c, 0xF0, 0xF4)) {
    if (left < 4 || !in(p[2], 0x80, 0xBF) || !in(p[3], 0x80, 0xBF)) return 0;
    unsigned char low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    return in(p[1], low, high) ? 4 : 0;
  }
  return 0;
}

}  // namespace agentrt::providers
