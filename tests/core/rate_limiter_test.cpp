// The counting under the rate limits (core/limits/): the token bucket's arithmetic,
// the in-memory limiter's buckets, runs and day counts, all on a clock the test moves.
#include "core/limits/memory_rate_limiter.h"
#include "core/limits/token_bucket.h"
#include "core/limits/utc_day.h"
#include "tests/core/fake_limit_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace agentrt::core::limits {
namespace {

using limit_test::kSecond;
using FakeClock = limit_test::FakeLimitClock;

TEST(TokenBucket, ABurstIsAdmittedThenTheNextWaitsOneInterval) {
  const Rate rate{60, 3};  // one a second, three at once
  int64_t tat = 0;
  const int64_t now = 50 * kSecond;
  for (int i = 0; i < 3; ++i) {
    const BucketAnswer answer = take_from_bucket(tat, now, rate);
    ASSERT_TRUE(answer.admitted) << "request " << i;
    tat = answer.tat;
  }
  const BucketAnswer refused = take_from_bucket(tat, now, rate);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.wait_ns, kSecond);
  EXPECT_EQ(refused.tat, tat) << "a refusal takes nothing";
}

TEST(TokenBucket, RefillsAtTheRateAndNeverPastTheBurst) {
  const Rate rate{120, 2};  // one each half second
  int64_t tat = 0;
  int64_t now = 10 * kSecond;
  for (int i = 0; i < 2; ++i) tat = take_from_bucket(tat, now, rate).tat;
  EXPECT_FALSE(take_from_bucket(tat, now, rate).admitted);
  now += kSecond / 4;
  EXPECT_EQ(take_from_bucket(tat, now, rate).wait_ns, kSecond / 4);
  now += kSecond / 4;
  BucketAnswer one = take_from_bucket(tat, now, rate);
  ASSERT_TRUE(one.admitted) << "half a second refills one";
  EXPECT_FALSE(take_from_bucket(one.tat, now, rate).admitted) << "and only one";
  // An hour idle fills the bucket to its burst, not to an hour's worth.
  now += 3600 * kSecond;
  tat = one.tat;
  for (int i = 0; i < 2; ++i) {
    const BucketAnswer answer = take_from_bucket(tat, now, rate);
    ASSERT_TRUE(answer.admitted);
    tat = answer.tat;
  }
  EXPECT_FALSE(take_from_bucket(tat, now, rate).admitted);
}

TEST(TokenBucket, TheSlowestRateAndLargestBurstDoNotOverflow) {
  const Rate rate{1, kMaxBurst};
  const int64_t now = 5 * kSecond;
  const BucketAnswer first = take_from_bucket(0, now, rate);
  ASSERT_TRUE(first.admitted);
  EXPECT_EQ(first.tat, now + 60 * kSecond);
  const BucketAnswer full = take_from_bucket(now + 60 * kSecond * int64_t{kMaxBurst}, now, rate);
  EXPECT_FALSE(full.admitted);
  EXPECT_EQ(full.wait_ns, 60 * kSecond);
}

TEST(InMemoryRateLimiter, RefusesPastTheBurstUntilTheClockMoves) {
  FakeClock clock;
  InMemoryRateLimiter limiter(clock);
  const Rate rate{60, 2};
  EXPECT_EQ(limiter.take(BucketKind::token, "tok1", rate).count(), 0);
  EXPECT_EQ(limiter.take(BucketKind::token, "tok1", rate).count(), 0);
  EXPECT_EQ(limiter.take(BucketKind::token, "tok1", rate).count(), kSecond);
  EXPECT_EQ(limiter.take(BucketKind::token, "tok2", rate).count(), 0) << "another token's own";
  EXPECT_EQ(limiter.take(BucketKind::cell, "tok1", rate).count(), 0)
      << "a cell's bucket is never a token's, whatever their names";
  clock.advance_ns(kSecond - 1);
  EXPECT_EQ(limiter.take(BucketKind::token, "tok1", rate).count(), 1);
  clock.advance_ns(1);
  EXPECT_EQ(limiter.take(BucketKind::token, "tok1", rate).count(), 0);
}

TEST(InMemoryRateLimiter, ThreadsAtOnceGetExactlyTheBurst) {
  FakeClock clock;
  InMemoryRateLimiter limiter(clock);
  const Rate rate{1, 1000};
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i)
        if (limiter.take(BucketKind::cell, "acme", rate).count() == 0) ++admitted;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), 1000);
}

TEST(InMemoryRateLimiter, FullBucketsAreDroppedAsNewKeysCome) {
  FakeClock clock;
  InMemoryRateLimiter limiter(clock);
  const Rate rate{60, 1};
  constexpr int kKeys = 40'000;  // past kPruneAbove in every one of the 64 stripes
  for (int i = 0; i < kKeys; ++i) limiter.take(BucketKind::token, "old" + std::to_string(i), rate);
  EXPECT_EQ(limiter.buckets(), size_t{kKeys});
  clock.advance_ns(2 * kSecond);  // every old bucket is full again
  for (int i = 0; i < kKeys; ++i) limiter.take(BucketKind::token, "new" + std::to_string(i), rate);
  EXPECT_EQ(limiter.buckets(), size_t{kKeys}) << "only the buckets still refilling are held";
  EXPECT_EQ(limiter.take(BucketKind::token, "new7", rate).count(), kSecond) << "kept as it was";
}

TEST(InMemoryRateLimiter, CountsRunsUnderWayUpToTheMost) {
  InMemoryRateLimiter limiter;
  EXPECT_TRUE(limiter.begin_run("acme/ada", 2));
  EXPECT_TRUE(limiter.begin_run("acme/ada", 2));
  EXPECT_FALSE(limiter.begin_run("acme/ada", 2));
  EXPECT_EQ(limiter.runs("acme/ada"), 2u) << "a refused run is not counted";
  EXPECT_TRUE(limiter.begin_run("acme/bob", 2)) << "each actor's own";
  limiter.end_run("acme/ada");
  EXPECT_TRUE(limiter.begin_run("acme/ada", 2));
  EXPECT_TRUE(limiter.begin_run("acme/ada", std::nullopt)) << "no most: counted all the same";
  EXPECT_EQ(limiter.runs("acme/ada"), 3u);
  EXPECT_FALSE(limiter.begin_run("acme/ada", 3));
  for (int i = 0; i < 3; ++i) limiter.end_run("acme/ada");
  EXPECT_EQ(limiter.runs("acme/ada"), 0u);
  limiter.end_run("acme/ada");  // one too many: nothing below zero
  EXPECT_FALSE(limiter.begin_run("acme/zed", 0)) << "a most of 0 admits none";
  EXPECT_EQ(limiter.runs("acme/zed"), 0u);
}

TEST(InMemoryRateLimiter, CountsTokensByDayAndDropsThoseOfAnEarlierDay) {
  InMemoryRateLimiter limiter;
  limiter.add_tokens("acme", 100, 700);
  limiter.add_tokens("acme", 100, 50);
  EXPECT_EQ(limiter.tokens("acme", 100), 750u);
  EXPECT_EQ(limiter.tokens("acme", 101), 0u) << "a new day starts at nothing";
  EXPECT_EQ(limiter.tokens("other", 100), 0u);
  limiter.add_tokens("acme", 101, 5);
  limiter.add_tokens("acme", 100, 1000);  // a run begun yesterday, ended today
  EXPECT_EQ(limiter.tokens("acme", 101), 5u);
  EXPECT_EQ(limiter.tokens("acme", 100), 0u) << "yesterday's count is gone";
  limiter.forget_cell("acme");
  EXPECT_EQ(limiter.tokens("acme", 101), 0u);
}

TEST(UtcDay, DaysAndTheSecondsToTheirEnd) {
  const int64_t day_start = 1'796'601'600'000;  // 2026-12-07T00:00:00Z
  EXPECT_EQ(utc_day(day_start), 20794);
  EXPECT_EQ(utc_day(day_start - 1), 20793);
  EXPECT_EQ(utc_day(day_start + kDayMs - 1), 20794);
  EXPECT_EQ(day_text(20794), "2026-12-07");
  EXPECT_EQ(day_start_text(20795), "2026-12-08T00:00:00Z");
  EXPECT_EQ(seconds_to_day_end(day_start), 86400);
  EXPECT_EQ(seconds_to_day_end(day_start + kDayMs - 1500), 2) << "rounded up";
  EXPECT_EQ(seconds_to_day_end(day_start + kDayMs - 1), 1) << "never 0";
}

}  // namespace
}  // namespace agentrt::core::limits
