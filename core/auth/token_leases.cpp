#include "core/auth/token_leases.h"

#include <algorithm>
#include <vector>

namespace agentrt::core {

TokenLeases::Lease::~Lease() {
  if (owner_ != nullptr && state_ != nullptr) owner_->release(token_id_, state_.get());
}

TokenLeases::Lease TokenLeases::hold(const std::string& token_id, std::function<void()> on_revoke) {
  if (token_id.empty()) return Lease();  // a module that names no id cannot revoke by it
  auto state = std::make_unique<Lease::State>();
  std::unique_lock lock(mutex_);
  const bool born_revoked = revoked_lately(token_id);
  state->revoked = born_revoked;
  if (!born_revoked) state->on_revoke = std::move(on_revoke);
  Lease::State*& newest = held_[token_id];
  state->older = newest;
  if (newest != nullptr) newest->newer = state.get();
  newest = state.get();
  lock.unlock();
  if (born_revoked && on_revoke) on_revoke();
  return Lease(this, token_id, std::move(state));
}

size_t TokenLeases::revoke(const std::string& token_id) {
  if (token_id.empty()) return 0;
  size_t ended = 0;
  std::vector<std::function<void()>> to_run;
  {
    std::lock_guard lock(mutex_);
    recent_[next_recent_] = token_id;
    next_recent_ = (next_recent_ + 1) % recent_.size();
    auto it = held_.find(token_id);
    for (Lease::State* state = it == held_.end() ? nullptr : it->second; state != nullptr;
         state = state->older) {
      if (state->revoked.exchange(true)) continue;
      ++ended;
      if (state->on_revoke) to_run.push_back(std::move(state->on_revoke));
    }
  }
  // Outside the lock: an on_revoke may wake a run whose thread is releasing its lease.
  for (const auto& run : to_run) run();
  return ended;
}

size_t TokenLeases::open() const {
  std::lock_guard lock(mutex_);
  size_t count = 0;
  for (const auto& [token_id, newest] : held_)
    for (const Lease::State* state = newest; state != nullptr; state = state->older) ++count;
  return count;
}

void TokenLeases::release(const std::string& token_id, Lease::State* state) {
  std::lock_guard lock(mutex_);
  if (state->older != nullptr) state->older->newer = state->newer;
  if (state->newer != nullptr) {
    state->newer->older = state->older;
    return;
  }
  // The token's newest lease, the head of its list: the list now starts at the next
  // older one, if any.
  auto it = held_.find(token_id);
  if (state->older != nullptr)
    it->second = state->older;
  else
    held_.erase(it);
}

bool TokenLeases::revoked_lately(const std::string& token_id) const {
  return std::find(recent_.begin(), recent_.end(), token_id) != recent_.end();
}

}  // namespace agentrt::core
