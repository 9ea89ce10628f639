// Layered memory through whichever memory-backend plugin the config names. This
// service owns the rules — the seven layers, which are shared, who may read and write
// as whom, what each field must be — and hands the backend clean requests; the backend
// owns storage, counting and search.
#pragma once

#include "core/auth/principal.h"
#include "core/cells/cell_fence.h"
#include "core/domain/striped_fence.h"
#include "core/memory/memory_totals_cache.h"
#include "core/plugin_host/loaded_plugin.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

// The seven layers, in the order counts list them.
const std::vector<std::string>& memory_layers();
bool is_memory_layer(const std::string& name);

// Query parameters of the read routes, raw.
struct MemoryQuery {
  std::optional<std::string> layer, actor, namespace_, session_id, limit, cursor;
};

class MemoryService {
 public:
  // `session_owned(cell, actor, session_id)`: the session's fence held while the session
  // exists and is that actor's (RunService::hold_session); nothing otherwise.
  using SessionCheck = std::function<std::optional<StripedFence::Hold>(
      const std::string&, const std::string&, const std::string&)>;

  // `hold_cell` holds a cell's fence for a write (core/cells/cell_fence.h): the
  // backend's storage is not in the transaction that deletes a cell.
  MemoryService(std::shared_ptr<PluginInstance> backend, SessionCheck session_owned,
                CellHold hold_cell);

  // For GET /health: the backend's store takes writes (PluginInstance::usable).
  bool usable() const { return backend_->usable(); }

  nlohmann::json save(const std::string& cell, const Principal& who, const nlohmann::json& body);
  nlohmann::json list(const std::string& cell, const Principal& who, const MemoryQuery& query);
  nlohmann::json get(const std::string& cell, const Principal& who, const std::string& id,
                     const MemoryQuery& query);
  void remove(const std::string& cell, const Principal& who, const std::string& id,
              const MemoryQuery& query);
  nlohmann::json clear_layer(const std::string& cell, const Principal& who,
                             const MemoryQuery& query);
  nlohmann::json search(const std::string& cell, const Principal& who, const nlohmann::json& body);
  nlohmann::json counts(const std::string& cell, const Principal& who, const MemoryQuery& query);

  // The newest entries of one layer for a run's context, unfiltered by who is calling:
  // the run service has already decided which actor, namespace and session apply.
  // `max_tokens` (> 0) asks a backend of ABI 1.5 or later to leave out entries whose
  // estimate is larger: a run whose window cannot hold them would read them whole, 20 of
  // every layer, 396 ms a /chat with 40 shared entries of 1 MB. An older backend may
  // refuse a field it does not know, and is not sent it.
  std::vector<nlohmann::json> recent(const std::string& cell, const std::string& layer,
                                     const std::string& actor,
                                     const std::optional<std::string>& namespace_,
                                     const std::optional<std::string>& session_id, int limit,
                                     int64_t max_tokens = 0);
  // How many entries of each layer `actor` sees in the cell (its own, and the shared
  // layers'), any namespace or session: one call that lets a run skip the layers it
  // would find empty.
  // Reused while the backend allows ("cache_s" in its count answer) and this host sent
  // the cell no write (memory_totals_cache.h).
  MemoryTotalsCache::Totals visible_totals(const std::string& cell, const std::string& actor);

  // Housekeeping of other features: a deleted session's entries, a deleted cell's, a
  // deleted agent's namespace.
  int64_t delete_session(const std::string& cell, const std::string& session_id);
  int64_t clear_cell(const std::string& cell);
  int64_t clear_namespace(const std::string& cell, const std::string& namespace_);

 private:
  nlohmann::json filter(const std::string& cell, const Principal& who,
                        const MemoryQuery& query) const;
  // The cell's fence, held; not_found when the cell is gone.
  CellFence::Hold held_cell(const std::string& cell, const Principal& who) const;
  nlohmann::json call(agentrt_json_call_fn fn, const nlohmann::json& request) const;
  nlohmann::json write(const std::string& cell, agentrt_json_call_fn fn,
                       const nlohmann::json& request);
  const agentrt_memory_vtable_t& table() const { return backend_->plugin().memory_table(); }

  std::shared_ptr<PluginInstance> backend_;
  SessionCheck session_owned_;
  CellHold hold_cell_;
  MemoryTotalsCache totals_;
};

}  // namespace agentrt::core
