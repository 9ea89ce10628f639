#include "core/auth/verified_tokens.h"

#include <algorithm>

namespace agentrt::core {

std::optional<Principal> VerifiedTokens::find(const std::string& token, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(token);
  if (it == entries_.end()) return std::nullopt;
  if (now >= it->second.until) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.who;
}

uint64_t VerifiedTokens::epoch() const {
  std::lock_guard lock(mutex_);
  return epoch_;
}

void VerifiedTokens::remember(const std::string& token, const Principal& who,
                              std::chrono::seconds reuse, uint64_t epoch_before,
                              Clock::time_point now) {
  reuse = std::min(reuse, kMaxReuse);
  if (reuse.count() <= 0) return;
  std::lock_guard lock(mutex_);
  if (epoch_ != epoch_before) return;
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[token] = Entry{who, now + reuse};
}

void VerifiedTokens::forget_token_id(const std::string& token_id) {
  std::lock_guard lock(mutex_);
  ++epoch_;
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second.who.token_id == token_id ? entries_.erase(it) : std::next(it);
}

void VerifiedTokens::forget_cell(const std::string& cell) {
  std::lock_guard lock(mutex_);
  ++epoch_;
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second.who.cell == cell ? entries_.erase(it) : std::next(it);
}

size_t VerifiedTokens::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace agentrt::core
