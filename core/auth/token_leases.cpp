#include "core/auth/token_leases.h"

#include <algorithm>
#include <vector>

namespace agentrt::core {

TokenLeases::Lease::Lease(TokenLeases* owner, Map::iterator where)
    : owner_(owner), where_(where), state_(&where->second) {}

TokenLeases::Lease::Lease(Lease&& other) noexcept
    : owner_(other.owner_), where_(other.where_), state_(other.state_) {
  other.owner_ = nullptr;
  other.state_ = nullptr;
}

TokenLeases::Lease::~Lease() {
  if (owner_ != nullptr) owner_->release(where_);
}

TokenLeases::Lease TokenLeases::hold(const std::string& token_id,
                                     std::function<void()> on_revoke) {
  if (token_id.empty()) return Lease();  // a module that names no id cannot revoke by it
  std::unique_lock lock(mutex_);
  const bool born_revoked = revoked_lately(token_id);
  auto where = held_.emplace(std::piecewise_construct, std::forward_as_tuple(token_id),
                             std::forward_as_tuple());
  Lease lease(this, where);
  where->second.revoked = born_revoked;
  if (!born_revoked) where->second.on_revoke = std::move(on_revoke);
  lock.unlock();
  if (born_revoked && on_revoke) on_revoke();
  return lease;
}

size_t TokenLeases::revoke(const std::string& token_id) {
  if (token_id.empty()) return 0;
  size_t ended = 0;
  std::vector<std::function<void()>> to_run;
  {
    std::lock_guard lock(mutex_);
    recent_[next_recent_] = token_id;
    next_recent_ = (next_recent_ + 1) % recent_.size();
    auto [first, last] = held_.equal_range(token_id);
    for (auto it = first; it != last; ++it) {
      if (it->second.revoked.exchange(true)) continue;
      ++ended;
      if (it->second.on_revoke) to_run.push_back(std::move(it->second.on_revoke));
    }
  }
  // Outside the lock: an on_revoke may wake a run whose thread is releasing its lease.
  for (const auto& run : to_run) run();
  return ended;
}

size_t TokenLeases::open() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

void TokenLeases::release(Lease::Map::iterator where) {
  std::lock_guard lock(mutex_);
  held_.erase(where);
}

bool TokenLeases::revoked_lately(const std::string& token_id) const {
  return std::find(recent_.begin(), recent_.end(), token_id) != recent_.end();
}

}  // namespace agentrt::core
