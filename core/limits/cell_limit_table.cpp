#include "core/limits/cell_limit_table.h"

#include "core/log/logger.h"

#include <mutex>

namespace agentrt::core::limits {

CellLimitTable::CellLimitTable(StateStore& store, CellLimits defaults)
    : store_(store), defaults_(std::move(defaults)) {}

void CellLimitTable::load() {
  std::vector<std::pair<std::string, std::string>> rows;
  store_.read([&](Connection& db) {
    auto query = db.prepare("SELECT cell, settings FROM cell_limits");
    while (query.step()) rows.emplace_back(query.column_text(0), query.column_text(1));
  });
  for (auto& [cell, text] : rows) {
    try {
      nlohmann::json own = nlohmann::json::parse(text);
      const CellLimits effective = apply_limits(defaults_, own);
      keep(cell, std::move(own), effective);
    } catch (const std::exception& e) {
      log_error("a cell's stored limits are unreadable; the cell has the defaults",
                {{"cell", cell}, {"error", e.what()}});
    }
  }
}

CellLimits CellLimitTable::effective(const std::string& cell) const {
  if (cells_with_own_.load(std::memory_order_relaxed) == 0) return defaults_;
  const Stripe& stripe = stripe_of(cell);
  std::shared_lock lock(stripe.mutex);
  auto found = stripe.cells.find(cell);
  return found == stripe.cells.end() ? defaults_ : found->second.effective;
}

nlohmann::json CellLimitTable::own(const std::string& cell) const {
  const Stripe& stripe = stripe_of(cell);
  std::shared_lock lock(stripe.mutex);
  auto found = stripe.cells.find(cell);
  return found == stripe.cells.end() ? nlohmann::json::object() : found->second.own;
}

void CellLimitTable::set(const std::string& cell, const nlohmann::json& own) {
  const CellLimits effective = apply_limits(defaults_, own);
  std::lock_guard setting(setting_);
  store_.write([&](Connection& db) {
    if (own.empty()) {
      db.prepare("DELETE FROM cell_limits WHERE cell = ?").bind(1, cell).run();
      return;
    }
    db.prepare(
          "INSERT INTO cell_limits(cell, settings, updated_at) VALUES(?, ?, ?) "
          "ON CONFLICT(cell) DO UPDATE SET settings = excluded.settings, "
          "updated_at = excluded.updated_at")
        .bind(1, cell)
        .bind(2, own.dump())
        .bind(3, utc_timestamp_now())
        .run();
  });
  keep(cell, own, effective);
}

void CellLimitTable::forget(const std::string& cell) {
  keep(cell, nlohmann::json::object(), defaults_);
}

void CellLimitTable::keep(const std::string& cell, nlohmann::json own,
                          const CellLimits& effective) {
  Stripe& stripe = stripe_of(cell);
  std::unique_lock lock(stripe.mutex);
  auto found = stripe.cells.find(cell);
  if (found != stripe.cells.end()) {
    --cells_with_own_;
    if (found->second.effective.limits_requests()) --cells_limiting_requests_;
    stripe.cells.erase(found);
  }
  if (own.empty()) return;
  ++cells_with_own_;
  if (effective.limits_requests()) ++cells_limiting_requests_;
  stripe.cells.emplace(cell, Entry{std::move(own), effective});
}

}  // namespace agentrt::core::limits
