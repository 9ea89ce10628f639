#include "core/domain/ids.h"

#include <sys/random.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

namespace agentrt::core {

std::string random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  size_t filled = 0;
  while (filled < bytes) {
    ssize_t n = ::getrandom(raw.data() + filled, bytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("getrandom failed");
    filled += static_cast<size_t>(n);
  }
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char b : raw) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

std::string new_id(const char* prefix) {
  return std::string(prefix) + "_" + random_hex(12);
}

}  // namespace agentrt::core
