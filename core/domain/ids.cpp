#include "core/domain/ids.h"

#include <pthread.h>
#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

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

std::string random_hex(size_t bytes) {
  thread_local RandomPool pool;
  std::vector<unsigned char> raw(bytes);
  pool.take(raw.data(), bytes);
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
