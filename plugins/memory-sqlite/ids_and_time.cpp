#include "ids_and_time.h"

#include <agentrt/plugin.hpp>

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace agentrt::memory_sqlite {
namespace {

constexpr char kIdPrefix[] = "mem_";
constexpr size_t kIdPrefixLength = sizeof kIdPrefix - 1;
constexpr size_t kIdRandomBytes = 12;

void random_bytes(unsigned char* out, size_t len) {
  while (len > 0) {
    ssize_t n = getrandom(out, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: getrandom failed");
    }
    out += n;
    len -= static_cast<size_t>(n);
  }
}

}  // namespace

std::string new_entry_id() {
  unsigned char bytes[kIdRandomBytes];
  random_bytes(bytes, sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(kIdPrefix);
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 0xf]);
  }
  return id;
}

bool is_entry_id(const std::string& text) {
  if (text.size() != kIdPrefixLength + 2 * kIdRandomBytes) return false;
  if (text.compare(0, kIdPrefixLength, kIdPrefix) != 0) return false;
  for (size_t i = kIdPrefixLength; i < text.size(); ++i) {
    char c = text[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string iso8601_ms(int64_t unix_ms) {
  // Floor division, so times before 1970 still get a millisecond part in 0..999.
  int64_t seconds = unix_ms / 1000;
  int64_t millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: timestamp out of range");
  char buf[40];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(millis));
  return buf;
}

}  // namespace agentrt::memory_sqlite
