// A clock for the rate limits' tests (core/limits/rate_limiter.h): time stands still
// until the test moves it.
#pragma once

#include "core/limits/rate_limiter.h"

#include <cstdint>

namespace agentrt::core::limits::limit_test {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kDayStart = 1'796'601'600'000;  // 2026-12-07T00:00:00Z, in ms

class FakeLimitClock : public LimitClock {
 public:
  int64_t steady_ns() const override { return steady; }
  int64_t unix_ms() const override { return wall_ms; }
  void advance_ns(int64_t ns) { steady += ns; }
  int64_t steady = 1'000 * kSecond;
  int64_t wall_ms = kDayStart;
};

}  // namespace agentrt::core::limits::limit_test
