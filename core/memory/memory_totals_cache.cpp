#include "core/memory/memory_totals_cache.h"

#include <algorithm>

namespace agentrt::core {

MemoryTotalsCache::Totals MemoryTotalsCache::find(const std::string& cell, const std::string& actor,
                                                  Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto in_cell = cells_.find(cell);
  if (in_cell == cells_.end()) return nullptr;
  auto it = in_cell->second.find(actor);
  if (it == in_cell->second.end()) return nullptr;
  if (now >= it->second.until) {
    in_cell->second.erase(it);
    --entries_;
    if (in_cell->second.empty()) cells_.erase(in_cell);  // no empty maps left behind
    return nullptr;
  }
  return it->second.totals;
}

uint64_t MemoryTotalsCache::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

void MemoryTotalsCache::remember(const std::string& cell, const std::string& actor, Totals totals,
                                 std::chrono::seconds reuse, uint64_t generation_before,
                                 Clock::time_point now) {
  reuse = std::min(reuse, kMaxReuse);
  if (reuse.count() <= 0 || !totals) return;
  std::lock_guard lock(mutex_);
  // One generation for every cell keeps the bookkeeping bounded; a write elsewhere
  // only costs this answer its place, never correctness.
  if (generation_ != generation_before) return;
  if (entries_ >= kMaxEntries) {
    cells_.clear();
    entries_ = 0;
  }
  if (cells_[cell].insert_or_assign(actor, Entry{std::move(totals), now + reuse}).second)
    ++entries_;
}

void MemoryTotalsCache::forget_cell(const std::string& cell) {
  std::lock_guard lock(mutex_);
  ++generation_;
  auto in_cell = cells_.find(cell);
  if (in_cell == cells_.end()) return;
  entries_ -= in_cell->second.size();
  cells_.erase(in_cell);
}

size_t MemoryTotalsCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

}  // namespace agentrt::core
