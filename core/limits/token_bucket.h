// A token bucket kept as one number, so that a request takes from it with one
// compare-and-swap and no lock: the generic cell rate algorithm (GCRA, ITU-T I.371),
// which admits exactly what a bucket of `burst` tokens refilled at the rate admits.
// The number is the bucket's "theoretical arrival time" (TAT): the time at which the
// bucket would be full again were no request to come. A request at `now` is admitted
// when, counted, that time stays within burst * interval of now; refused, it learns how
// long until it would be. A shared store (Redis and the like) keeps the same one number
// per key, which is why RateLimiter's buckets are this and not a count and a timestamp.
#pragma once

#include "core/limits/limit_settings.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace agentrt::core::limits {

// Nanoseconds between two requests at `rate`'s pace.
constexpr int64_t interval_ns(const Rate& rate) {
  return static_cast<int64_t>(60'000'000'000ULL / rate.requests_per_minute);
}

struct BucketAnswer {
  bool admitted = false;
  int64_t tat = 0;      // the bucket's time once this request is counted (admitted only)
  int64_t wait_ns = 0;  // until this request would be admitted (refused only)
};

// One request at `now` against a bucket whose time is `tat` (0 for a bucket never
// used: a full one). Times in nanoseconds of one monotonic clock.
constexpr BucketAnswer take_from_bucket(int64_t tat, int64_t now, const Rate& rate) {
  const int64_t interval = interval_ns(rate);
  // At most 60e9 * 1e6 = 6e16: no overflow (kMaxBurst, one request a minute).
  const int64_t tolerance = interval * static_cast<int64_t>(rate.burst);
  const int64_t next = std::max(tat, now) + interval;
  if (next - now > tolerance) return {false, tat, next - now - tolerance};
  return {true, next, 0};
}

// A bucket that threads share: take() is one load and, when admitted, a CAS.
class AtomicBucket {
 public:
  // 0 when the request is admitted (and counted); else the nanoseconds until it would be.
  int64_t take(int64_t now, const Rate& rate) {
    int64_t tat = tat_.load(std::memory_order_relaxed);
    for (;;) {
      const BucketAnswer answer = take_from_bucket(tat, now, rate);
      if (!answer.admitted) return answer.wait_ns;
      if (tat_.compare_exchange_weak(tat, answer.tat, std::memory_order_relaxed)) return 0;
    }
  }
  // Full again by `now`: the same as a bucket never used, so it may be dropped.
  bool full(int64_t now) const { return tat_.load(std::memory_order_relaxed) <= now; }

 private:
  std::atomic<int64_t> tat_{0};
};

}  // namespace agentrt::core::limits
