// The benchmark's three phases, each driven through the plugin's JSON calls exactly as
// the engine makes them: loading, counting over many filters, and searching.
#pragma once

#include "latencies.h"
#include "workload.h"

#include "core/plugin_host/loaded_plugin.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace agentrt::bench {

class Memory {
 public:
  explicit Memory(const core::PluginInstance& instance) : instance_(instance) {}
  const agentrt_memory_vtable_t& table() const { return instance_.plugin().memory_table(); }
  nlohmann::json call(agentrt_json_call_fn fn, const nlohmann::json& request) const {
    return nlohmann::json::parse(instance_.call_json(fn, request.dump()));
  }
  // Entries in the store, all cells of the workload (admin counts, summed).
  size_t total(const Workload& w) const;

 private:
  const core::PluginInstance& instance_;
};

struct LoadResult {
  size_t entries = 0;
  bool reused = false;  // the data dir already held this data set
  double seconds = 0;
  Latencies saves;
};

// Saves `n` entries one call at a time, or, when the store already holds exactly `n`,
// only replays the workload so its session bookkeeping matches the store.
LoadResult load(const Memory& memory, Workload& workload, size_t n);

struct ClassResult {
  std::string name;
  Latencies latencies;
  double mean_hits = 0;  // search only: results per query
};

std::vector<ClassResult> measure_counts(const Memory& memory, const Workload& workload,
                                        size_t samples_per_class, uint64_t seed);
std::vector<ClassResult> measure_searches(const Memory& memory, const Workload& workload,
                                          size_t samples_per_class, uint64_t seed);

}  // namespace agentrt::bench
