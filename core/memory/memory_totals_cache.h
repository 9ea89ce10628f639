// The per-layer totals an actor sees, as a run's context last asked the memory backend
// for them. Every run asks (to skip the layers it would find empty), and most actors'
// memory changes far less often than they run: the call was 7-9% of agentd's CPU per
// /chat. Only answers the backend marked reusable ("cache_s") are kept, never past
// that time, and any write this host sends to a cell drops that cell's totals: the
// backend vouches that nothing else writes its store.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentrt::core {

class MemoryTotalsCache {
 public:
  using Clock = std::chrono::steady_clock;
  using Totals = std::shared_ptr<const nlohmann::json>;
  // Bounds memory: a full cache is emptied and refills with the actors in use.
  static constexpr size_t kMaxEntries = 8192;
  static constexpr std::chrono::seconds kMaxReuse{300};

  Totals find(const std::string& cell, const std::string& actor,
              Clock::time_point now = Clock::now());

  // Read before asking the backend; remember() then keeps nothing if a write went to
  // the backend meanwhile (the answer could predate it).
  uint64_t generation() const;
  void remember(const std::string& cell, const std::string& actor, Totals totals,
                std::chrono::seconds reuse, uint64_t generation_before,
                Clock::time_point now = Clock::now());

  // After every write to the cell's memory, successful or not (a failed one may still
  // have changed something), and before the writer's caller hears back.
  void forget_cell(const std::string& cell);

  size_t size() const;

 private:
  struct Entry {
    Totals totals;
    Clock::time_point until;
  };
  using ByActor = std::unordered_map<std::string, Entry>;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, ByActor> cells_;
  size_t entries_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace agentrt::core
