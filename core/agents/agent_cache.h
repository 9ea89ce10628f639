// The agents that runs name, kept in memory: a /chat naming an agent finds it here
// instead of reading its row (19 thousand instructions a /chat). Exact, because only
// the agentd that holds the data dir changes its store (core/store/data_dir.h) and every
// change to an agent goes through AgentService, which forgets the agent once the
// change is committed.
#pragma once

#include "core/agents/agent.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentrt::core {

class AgentCache {
 public:
  // Past `capacity` agents the cache starts again empty: a bound, not a policy, since a
  // cell with that many agents in use pays a read a /chat at worst, as without it.
  explicit AgentCache(size_t capacity = 4096) : capacity_(capacity) {}

  std::shared_ptr<const Agent> find(const std::string& cell, const std::string& id) const;
  // Read before the store is: an agent read then is kept only while no change came
  // between (remember), since the read may predate it.
  uint64_t changes() const;
  void remember(std::shared_ptr<const Agent> agent, uint64_t changes_before);
  // After a change to the agent, or to the cell's, is committed.
  void forget(const std::string& cell, const std::string& id);
  void forget_cell(const std::string& cell);

 private:
  static std::string key_of(const std::string& cell, const std::string& id);

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Agent>> agents_;
  uint64_t changes_ = 0;
};

}  // namespace agentrt::core
