#include "core/domain/ids.h"

#include <sys/random.h>

#include <cerrno>
#include <chrono>
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

std::string new_id(const char* prefix, uint64_t unix_ms) {
  static const char digits[] = "0123456789abcdef";
  std::string id = std::string(prefix) + "_";
  for (int shift = 44; shift >= 0; shift -= 4) id.push_back(digits[(unix_ms >> shift) & 15]);
  return id + random_hex(6);
}

std::string new_id(const char* prefix) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return new_id(prefix, static_cast<uint64_t>(
                            std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
}

}  // namespace agentrt::core
