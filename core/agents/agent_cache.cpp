#include "core/agents/agent_cache.h"

namespace agentrt::core {

std::string AgentCache::key_of(const std::string& cell, const std::string& id) {
  std::string key;
  key.reserve(cell.size() + 1 + id.size());
  // Cell ids hold no NUL, so no two (cell, id) pairs share a key.
  key.append(cell).push_back('\0');
  key.append(id);
  return key;
}

std::shared_ptr<const Agent> AgentCache::find(const std::string& cell,
                                              const std::string& id) const {
  const std::string key = key_of(cell, id);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = agents_.find(key);
  return it == agents_.end() ? nullptr : it->second;
}

uint64_t AgentCache::changes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return changes_;
}

void AgentCache::remember(std::shared_ptr<const Agent> agent, uint64_t changes_before) {
  std::string key = key_of(agent->cell, agent->id);
  std::lock_guard<std::mutex> lock(mutex_);
  if (changes_ != changes_before) return;
  if (agents_.size() >= capacity_) agents_.clear();
  agents_.insert_or_assign(std::move(key), std::move(agent));
}

void AgentCache::forget(const std::string& cell, const std::string& id) {
  const std::string key = key_of(cell, id);
  std::lock_guard<std::mutex> lock(mutex_);
  ++changes_;
  agents_.erase(key);
}

void AgentCache::forget_cell(const std::string& cell) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++changes_;
  for (auto it = agents_.begin(); it != agents_.end();)
    it = it->second->cell == cell ? agents_.erase(it) : std::next(it);
}

}  // namespace agentrt::core
