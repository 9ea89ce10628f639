// The day of the tokens-per-day quota: UTC's, the same for every cell whatever its
// timezone, so that every cell's day resets at one moment an operator's billing and
// dashboards share, and no day is 23 or 25 hours long.
#pragma once

#include <cstdint>
#include <string>

namespace agentrt::core::limits {

inline constexpr int64_t kDayMs = 86'400'000;

// Days since 1970-01-01 UTC.
constexpr int64_t utc_day(int64_t unix_ms) {
  return unix_ms >= 0 ? unix_ms / kDayMs : (unix_ms - kDayMs + 1) / kDayMs;
}

// Whole seconds from `unix_ms` to the end of its day, rounded up, at least 1: a
// Retry-After that, waited, finds the new day.
constexpr int64_t seconds_to_day_end(int64_t unix_ms) {
  const int64_t left_ms = (utc_day(unix_ms) + 1) * kDayMs - unix_ms;
  const int64_t seconds = (left_ms + 999) / 1000;
  return seconds < 1 ? 1 : seconds;
}

// "2026-12-07"
std::string day_text(int64_t day);
// "2026-12-08T00:00:00Z": the moment `day` begins.
std::string day_start_text(int64_t day);

}  // namespace agentrt::core::limits
