// The limits an admin set for single cells (PUT /admin/cells/{id}/limits), over the
// config's defaults. Stored in the state store's `cell_limits` table, whose row of a
// cell goes with the cell (a foreign key, ON DELETE CASCADE), and held in memory for
// the look-up every request of a limited deployment makes: striped by cell, a shared
// lock of one stripe, and none at all while no cell has limits of its own.
#pragma once

#include "core/limits/limit_settings.h"
#include "core/store/state_store.h"

#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace agentrt::core::limits {

class CellLimitTable {
 public:
  CellLimitTable(StateStore& store, CellLimits defaults);

  // Reads every stored row. A row the reader now refuses (written by hand) is logged
  // and left out: its cell has the defaults.
  void load();

  // The cell's limits: its own over the defaults.
  CellLimits effective(const std::string& cell) const;
  // What an admin set for the cell, as sent; {} when nothing.
  nlohmann::json own(const std::string& cell) const;
  // Replaces the cell's own limits with `own` (checked first: LimitValueError), stored
  // before they take effect; {} leaves the cell with the defaults. The caller holds the
  // cell's fence (core/cells/cell_fence.h), so that the row cannot outlive the cell.
  void set(const std::string& cell, const nlohmann::json& own);
  // The cell is deleted (its row went with it).
  void forget(const std::string& cell);

  const CellLimits& defaults() const { return defaults_; }
  // Whether any cell's limits limit requests: the defaults, or some cell's own.
  bool any_limit_requests() const {
    return defaults_.limits_requests() ||
           cells_limiting_requests_.load(std::memory_order_relaxed) > 0;
  }

 private:
  struct Entry {
    nlohmann::json own;
    CellLimits effective;
  };
  struct alignas(64) Stripe {
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, Entry> cells;
  };
  static constexpr size_t kStripes = 16;
  Stripe& stripe_of(const std::string& cell) const {
    return stripes_[std::hash<std::string>{}(cell) % kStripes];
  }
  // Puts the entry in memory (none for an empty `own`), keeping the counts right.
  void keep(const std::string& cell, nlohmann::json own, const CellLimits& effective);

  StateStore& store_;
  const CellLimits defaults_;
  // One set() at a time, so that memory keeps what the store kept last.
  std::mutex setting_;
  mutable std::array<Stripe, kStripes> stripes_;
  std::atomic<size_t> cells_with_own_{0};
  std::atomic<size_t> cells_limiting_requests_{0};
};

}  // namespace agentrt::core::limits
