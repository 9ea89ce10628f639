// RateLimiter in agentd's own memory. Every request of a limited cell takes from one or
// two buckets, so that path takes no lock of its own: the maps are striped by key (a
// shared lock of one stripe of 64, found by the key's hash), and a bucket is taken
// from with a CAS (token_bucket.h). Only a key's first request, and a stripe's pruning
// of its full buckets then, take a stripe's exclusive lock. Runs and tokens are counted
// once a run, under a stripe's mutex.
#pragma once

#include "core/limits/rate_limiter.h"
#include "core/limits/token_bucket.h"

#include <array>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace agentrt::core::limits {

class InMemoryRateLimiter : public RateLimiter {
 public:
  explicit InMemoryRateLimiter(const LimitClock& clock = real_clock()) : clock_(clock) {}

  std::chrono::nanoseconds take(BucketKind kind, const std::string& key, const Rate& rate) override;
  bool begin_run(const std::string& key, std::optional<uint64_t> max) override;
  void end_run(const std::string& key) override;
  uint64_t runs(const std::string& key) const override;
  uint64_t tokens(const std::string& cell, int64_t day) const override;
  void add_tokens(const std::string& cell, int64_t day, uint64_t tokens) override;
  void forget_cell(const std::string& cell) override;

  // Buckets held now, of both kinds (for tests of the pruning).
  size_t buckets() const;

  // A stripe drops its full buckets when a new key would take it past this many: a
  // bucket that is full is the same as none, so the maps hold only the keys that sent
  // requests within their last burst's time.
  static constexpr size_t kPruneAbove = 256;

 private:
  static constexpr size_t kStripes = 64;

  template <class Map, class Mutex>
  struct alignas(64) Stripe {
    mutable Mutex mutex;
    Map map;
  };
  template <class Map, class Mutex>
  using Stripes = std::array<Stripe<Map, Mutex>, kStripes>;

  template <class Map, class Mutex>
  static Stripe<Map, Mutex>& stripe_of(Stripes<Map, Mutex>& stripes, const std::string& key) {
    return stripes[std::hash<std::string>{}(key) % kStripes];
  }

  struct DayCount {
    int64_t day = 0;
    uint64_t tokens = 0;
  };
  using BucketMap = std::unordered_map<std::string, AtomicBucket>;

  const LimitClock& clock_;
  // One map per kind, so that a token's id and a cell's never share a bucket.
  std::array<Stripes<BucketMap, std::shared_mutex>, 2> buckets_;
  mutable Stripes<std::unordered_map<std::string, uint64_t>, std::mutex> runs_;
  mutable Stripes<std::unordered_map<std::string, DayCount>, std::mutex> days_;
};

}  // namespace agentrt::core::limits
