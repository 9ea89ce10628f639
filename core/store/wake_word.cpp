#include "core/store/wake_word.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace agentrt::core {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "the kernel reads the word as a plain 32-bit integer");

// Returns at once unless the word still holds `expected`; EINTR and spurious returns
// are fine, the caller looks again.
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace

WakeWord::State WakeWord::wait() {
  uint32_t seen = word_.load(std::memory_order_acquire);
  for (;;) {
    if (seen == kDone || seen == kYourTurn) return static_cast<State>(seen);
    if (seen == kWaiting &&
        !word_.compare_exchange_weak(seen, kSleeping, std::memory_order_acquire))
      continue;  // `seen` now holds what changed it
    futex_wait(&word_, kSleeping);
    seen = word_.load(std::memory_order_acquire);
  }
}

bool WakeWord::rearm() {
  uint32_t expected = kYourTurn;
  return word_.compare_exchange_strong(expected, kWaiting, std::memory_order_acquire);
}

void WakeWord::post(State state) {
  std::atomic<uint32_t>* const word = &word_;
  // Release: what the poster wrote for the waiter (its error) is visible once it
  // reads the new state. From here on `this` may be gone; only the address is used.
  if (word->exchange(state, std::memory_order_acq_rel) == kSleeping) futex_wake(word);
}

}  // namespace agentrt::core
