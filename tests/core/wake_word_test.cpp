// The futex word the group commit wakes its writers with (core/store/wake_word.h).
#include "core/store/wake_word.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;

TEST(WakeWord, ASleepingWaiterWakesWhenItsWorkIsDone) {
  WakeWord word;
  auto woke = std::async(std::launch::async, [&] { return word.wait(); });
  // Long enough for the waiter to be asleep in the kernel, not just spinning.
  EXPECT_EQ(woke.wait_for(50ms), std::future_status::timeout);
  word.post(WakeWord::kDone);
  ASSERT_EQ(woke.wait_for(5s), std::future_status::ready) << "the post lost its wake-up";
  EXPECT_EQ(woke.get(), WakeWord::kDone);
}

TEST(WakeWord, ATurnIsTakenBackByRearmingButDoneIsFinal) {
  WakeWord word;
  word.post(WakeWord::kYourTurn);
  EXPECT_EQ(word.wait(), WakeWord::kYourTurn);
  EXPECT_TRUE(word.rearm());
  auto woke = std::async(std::launch::async, [&] { return word.wait(); });
  EXPECT_EQ(woke.wait_for(20ms), std::future_status::timeout) << "rearmed, nothing posted";
  word.post(WakeWord::kDone);
  EXPECT_EQ(woke.get(), WakeWord::kDone);
  EXPECT_FALSE(word.rearm()) << "a finished waiter must never wait again";
  EXPECT_EQ(word.wait(), WakeWord::kDone);
}

// The waiter's word lives on its stack and is gone as soon as it sees kDone; the
// poster must neither lose a wake-up nor write to it afterwards (the sanitizer build
// runs this too).
TEST(WakeWord, EveryPostReachesAWaiterWhoseWordLivesOnItsStack) {
  constexpr int kRounds = 20000;
  std::atomic<WakeWord*> published{nullptr};
  std::thread waiter([&] {
    for (int i = 0; i < kRounds; ++i) {
      WakeWord word;
      published.store(&word, std::memory_order_release);
      while (word.wait() != WakeWord::kDone) {
      }
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    WakeWord* word = nullptr;
    while ((word = published.exchange(nullptr, std::memory_order_acquire)) == nullptr)
      std::this_thread::yield();
    word->post(WakeWord::kDone);
  }
  waiter.join();
}

}  // namespace
}  // namespace agentrt::core
