// What the limits count, behind one interface: the buckets of request rates, the runs
// under way per actor, and the tokens of each cell's day. agentd keeps them in its own
// memory (InMemoryRateLimiter); several agentd serving one deployment would share them
// through an implementation over a shared store, and the policy (core/limits/limits.h)
// would not change. Every method may be called from any thread at once.
#pragma once

#include "core/limits/limit_settings.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core::limits {

// The limiter's clocks, injected so that tests move time rather than sleep.
class LimitClock {
 public:
  virtual ~LimitClock() = default;
  // Monotonic nanoseconds, for the buckets.
  virtual int64_t steady_ns() const = 0;
  // Milliseconds since 1970 UTC, for the day.
  virtual int64_t unix_ms() const = 0;
};

// The process's own clocks (steady_clock, system_clock).
const LimitClock& real_clock();

enum class BucketKind { token, cell };

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;

  // One request from the bucket of `kind` and `key` (a token's id, a cell's), refilled
  // at `rate`: zero when admitted (and counted), else how long until it would be.
  virtual std::chrono::nanoseconds take(BucketKind kind, const std::string& key,
                                        const Rate& rate) = 0;

  // A run of `key` (an actor in a cell) begins: counted and true, unless `max` of its
  // runs are under way already (false, not counted). No `max`: always counted.
  virtual bool begin_run(const std::string& key, std::optional<uint64_t> max) = 0;
  virtual void end_run(const std::string& key) = 0;
  // Runs of `key` under way.
  virtual uint64_t runs(const std::string& key) const = 0;

  // Tokens of `cell`'s runs begun on `day` (days since 1970, UTC).
  virtual uint64_t tokens(const std::string& cell, int64_t day) const = 0;
  // Adds to that count; tokens of a day before the counted one are dropped (a run
  // that began yesterday and ends today counts in yesterday).
  virtual void add_tokens(const std::string& cell, int64_t day, uint64_t tokens) = 0;
  // A cell deleted: what is kept of it goes.
  virtual void forget_cell(const std::string& cell) = 0;
};

}  // namespace agentrt::core::limits
