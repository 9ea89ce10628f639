#include "core/limits/memory_rate_limiter.h"

#include <iterator>

namespace agentrt::core::limits {
std::chrono::nanoseconds InMemoryRateLimiter::take(BucketKind kind, const std::string& key,
                                                   const Rate& rate) {
  auto& stripe = stripe_of(buckets_[static_cast<size_t>(kind)], key);
  const int64_t now = clock_.steady_ns();
  {
    std::shared_lock lock(stripe.mutex);
    auto found = stripe.map.find(key);
    if (found != stripe.map.end()) return std::chrono::nanoseconds(found->second.take(now, rate));
  }
  std::unique_lock lock(stripe.mutex);
  if (stripe.map.size() >= kPruneAbove && stripe.map.find(key) == stripe.map.end()) {
    for (auto it = stripe.map.begin(); it != stripe.map.end();)
      it = it->second.full(now) ? stripe.map.erase(it) : std::next(it);
  }
  auto entry = stripe.map.try_emplace(key).first;
  return std::chrono::nanoseconds(entry->second.take(now, rate));
}

bool InMemoryRateLimiter::begin_run(const std::string& key, std::optional<uint64_t> max) {
  auto& stripe = stripe_of(runs_, key);
  std::lock_guard lock(stripe.mutex);
  uint64_t& live = stripe.map[key];
  if (max && live >= *max) {
    if (live == 0) stripe.map.erase(key);
    return false;
  }
  ++live;
  return true;
}

void InMemoryRateLimiter::end_run(const std::string& key) {
  auto& stripe = stripe_of(runs_, key);
  std::lock_guard lock(stripe.mutex);
  auto found = stripe.map.find(key);
  if (found == stripe.map.end()) return;
  if (--found->second == 0) stripe.map.erase(found);
}

uint64_t InMemoryRateLimiter::runs(const std::string& key) const {
  auto& stripe = stripe_of(runs_, key);
  std::lock_guard lock(stripe.mutex);
  auto found = stripe.map.find(key);
  return found == stripe.map.end() ? 0 : found->second;
}

uint64_t InMemoryRateLimiter::tokens(const std::string& cell, int64_t day) const {
  auto& stripe = stripe_of(days_, cell);
  std::lock_guard lock(stripe.mutex);
  auto found = stripe.map.find(cell);
  return found == stripe.map.end() || found->second.day != day ? 0 : found->second.tokens;
}

void InMemoryRateLimiter::add_tokens(const std::string& cell, int64_t day, uint64_t tokens) {
  auto& stripe = stripe_of(days_, cell);
  std::lock_guard lock(stripe.mutex);
  DayCount& count = stripe.map[cell];
  if (day < count.day) return;
  if (day > count.day) count = {day, 0};
  count.tokens += tokens;
}

void InMemoryRateLimiter::forget_cell(const std::string& cell) {
  {
    auto& stripe = stripe_of(days_, cell);
    std::lock_guard lock(stripe.mutex);
    stripe.map.erase(cell);
  }
  auto& stripe = stripe_of(buckets_[static_cast<size_t>(BucketKind::cell)], cell);
  std::unique_lock lock(stripe.mutex);
  stripe.map.erase(cell);
}

size_t InMemoryRateLimiter::buckets() const {
  size_t held = 0;
  for (const auto& kind : buckets_) {
    for (const auto& stripe : kind) {
      std::shared_lock lock(stripe.mutex);
      held += stripe.map.size();
    }
  }
  return held;
}

}  // namespace agentrt::core::limits
