// Cells: the tenants of a multi-cell deployment. In single-cell mode the one cell,
// "default", always exists.
#pragma once

#include "core/cells/cell_fence.h"
#include "core/domain/paging.h"
#include "core/store/state_store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentrt::core {

constexpr const char* kDefaultCellId = "default";

struct Cell {
  std::string id, timezone, locale, created_at, updated_at;
};
nlohmann::json to_json(const Cell& cell);

class CellService {
 public:
  // Called with the id of a cell being deleted, inside the deleting transaction, so
  // each feature removes what it keeps in the cell (later: sessions, memory, agents).
  using CellCleanup = std::function<void(Connection&, const std::string& cell_id)>;

  CellService(StateStore& store, bool single_cell);

  // Makes "default" exist in single-cell mode; a no-op otherwise.
  void ensure_default_cell();
  // Up to `limit` ids of cells other than "default", in id order: what a multi-cell
  // data dir holds that single-cell mode cannot reach.
  std::vector<std::string> cells_beside_default(int limit) const;

  // Records this start's mode in state.db; true when the last start served the data
  // dir in single-cell mode and this one serves it in multi.
  bool record_mode();

  Cell create(const nlohmann::json& body);  // 400, 409
  std::optional<Cell> find(const std::string& id) const;
  // The cell's incarnation (its row's seq, new for a cell made again under a deleted
  // one's id), or none when there is no such cell. Asked by every cell-scoped request,
  // so cells seen to exist are remembered until deleted through this service (the one
  // process that owns the data dir deletes them); a cell not seen yet is looked up, so
  // a new one is found at once.
  std::optional<int64_t> incarnation(const std::string& id) const;
  bool exists(const std::string& id) const { return incarnation(id).has_value(); }
  // The cell's fence held while the cell exists (cell_fence.h), for a write that its
  // deletion's transaction cannot see; nothing when there is no such cell, or when
  // `seq` is given and the cell is another incarnation (CellHold).
  std::optional<CellFence::Hold> hold(const std::string& id,
                                      std::optional<int64_t> seq = std::nullopt) const;
  nlohmann::json list(const PageRequest& page) const;              // {"data","next_cursor"}
  Cell update(const std::string& id, const nlohmann::json& body);  // 400, 404
  void remove(const std::string& id);                              // 404, 409 for default

  void add_cleanup(CellCleanup cleanup) { cleanups_.push_back(std::move(cleanup)); }
  // Called with the id of a deleted cell once its deletion is committed: for what a
  // feature holds in memory, which a read racing the deletion could otherwise fill
  // again from the store before the commit.
  using CellForget = std::function<void(const std::string& cell_id)>;
  void add_forget(CellForget forget) { forgets_.push_back(std::move(forget)); }

 private:
  StateStore& store_;
  bool single_cell_;
  std::vector<CellCleanup> cleanups_;
  std::vector<CellForget> forgets_;
  CellFence fence_;
  mutable std::shared_mutex known_mutex_;
  mutable std::unordered_map<std::string, int64_t> known_;  // id -> incarnation
  // Bumped by every delete, so a lookup that raced a delete does not put the deleted
  // cell back into known_.
  mutable uint64_t deletions_ = 0;
};

}  // namespace agentrt::core
