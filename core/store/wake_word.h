// One waiting thread's word, which other threads set to wake it: a futex(2) on a
// 32-bit word, with no mutex for the woken thread to take. The group commit wakes the
// writers it served through it: with a condition variable each woken writer first had
// to take the batcher's mutex, which the leader or the writer woken just before still
// held, so each slept a second time on the mutex (one extra sleep and wake-up per
// writer, and the writers left one by one).
//
// The word may live on the waiter's stack. The waiter returns as soon as it reads
// kDone, so after post(kDone) the poster touches nothing of it any more: it only
// hands the word's address to the kernel, which tolerates an address that has gone
// (a waiter that later sleeps on the same address wakes spuriously and looks again).
#pragma once

#include <atomic>
#include <cstdint>

namespace agentrt::core {

class WakeWord {
 public:
  enum State : uint32_t {
    kWaiting = 0,   // nothing posted, waiter awake
    kDone = 1,      // the waiter's work is finished: final
    kSleeping = 2,  // nothing posted, waiter asleep in the kernel
    kYourTurn = 3,  // the waiter should look again (under the poster's lock)
  };

  WakeWord() = default;
  WakeWord(const WakeWord&) = delete;
  WakeWord& operator=(const WakeWord&) = delete;

  // The waiter: sleeps until something is posted; returns kDone or kYourTurn.
  State wait();
  // The waiter, after kYourTurn: back to kWaiting. False when kDone was posted
  // meanwhile (the word then stays kDone).
  bool rearm();
  // Any other thread: sets the word to kDone or kYourTurn and wakes the waiter if it
  // sleeps. After kDone the word may be gone as soon as this returns.
  void post(State state);

 private:
  std::atomic<uint32_t> word_{kWaiting};
};

}  // namespace agentrt::core
