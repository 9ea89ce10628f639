#include "core/domain/ids.h"

#include <pthread.h>
#include <sys/random.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace agentrt::core {

namespace {

void fill_from_os(unsigned char* out, size_t bytes) {
  size_t filled = 0;
  while (filled < bytes) {
    ssize_t n = ::getrandom(out + filled, bytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("getrandom failed");
    filled += static_cast<size_t>(n);
  }
}

// Bumped in a forked child, whose copies of the threads' pools the parent may still
// hand out: a pool from an older generation is thrown away, not used twice.
std::atomic<unsigned> fork_generation{0};

void count_forks() {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, [] { ++fork_generation; }); });
}

// Random bytes from the OS, fetched a few hundred at a time: two ids a /chat were
// two getrandom calls, now one call serves about forty ids of a thread.
class RandomPool {
 public:
  void take(unsigned char* out, size_t bytes) {
    if (bytes > sizeof pool_) return fill_from_os(out, bytes);
    const unsigned generation = fork_generation.load(std::memory_order_relaxed);
    if (generation != generation_ || sizeof pool_ - used_ < bytes) {
      count_forks();
      fill_from_os(pool_, sizeof pool_);
      used_ = 0;
      generation_ = generation;
    }
    std::memcpy(out, pool_ + used_, bytes);
    std::memset(pool_ + used_, 0, bytes);  // handed out once, kept nowhere
    used_ += bytes;
  }

 private:
  unsigned char pool_[256];
  size_t used_ = sizeof pool_;
  unsigned generation_ = 0;
};

}  // namespace

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Writes `bytes` random bytes as hex at `out` (2 * bytes characters).
void write_random_hex(char* out, size_t bytes) {
  thread_local RandomPool pool;
  unsigned char raw[32];
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(bytes - done, sizeof raw);
    pool.take(raw, n);
    for (size_t i = 0; i < n; ++i) {
      *out++ = kHexDigits[raw[i] >> 4];
      *out++ = kHexDigits[raw[i] & 15];
    }
    std::memset(raw, 0, n);
    done += n;
  }
}

}  // namespace

std::string random_hex(size_t bytes) {
  std::string out(bytes * 2, '\0');
  write_random_hex(out.data(), bytes);
  return out;
}

// Written into one buffer and made a string once: built a character at a time, an id
// cost about 1,400 instructions, two of them a new session's /chat.
std::string new_id(const char* prefix, uint64_t unix_ms) {
  const size_t prefix_size = std::strlen(prefix);
  std::string id(prefix_size + 1 + 12 + 12, '\0');
  char* out = id.data();
  std::memcpy(out, prefix, prefix_size);
  out += prefix_size;
  *out++ = '_';
  for (int shift = 44; shift >= 0; shift -= 4) *out++ = kHexDigits[(unix_ms >> shift) & 15];
  write_random_hex(out, 6);
  return id;
}

std::string new_id(const char* prefix) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return new_id(prefix, static_cast<uint64_t>(
                            std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
}

}  // namespace agentrt::core
