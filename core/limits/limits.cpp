#include "core/limits/limits.h"

#include "core/limits/utc_day.h"
#include "core/log/logger.h"
#include "core/metrics/metrics.h"

#include <chrono>

namespace agentrt::core::limits {
namespace {

bool engine_admin(const Principal& who) {
  return who.admin && !who.cell;
}

// "600 requests a minute, 60 at once"
std::string rate_text(const Rate& rate) {
  return std::to_string(rate.requests_per_minute) +
         (rate.requests_per_minute == 1 ? " request a minute, " : " requests a minute, ") +
         std::to_string(rate.burst) + " at once";
}

// The smallest id of a run begun at `unix_ms` or later: ids begin with their time
// (core/domain/ids.h), so a day's runs are a range of the runs' unique index.
std::string first_run_id_at(int64_t unix_ms) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "run_";
  for (int shift = 44; shift >= 0; shift -= 4)
    id += kHex[(static_cast<uint64_t>(unix_ms) >> shift) & 15];
  return id;
}

}  // namespace

Limits::Limits(StateStore& store, const CellLimits& defaults, std::unique_ptr<RateLimiter> limiter,
               const LimitClock& clock)
    : store_(store), table_(store, defaults), limiter_(std::move(limiter)), clock_(clock) {}

void Limits::load() {
  table_.load();
  const int64_t today = utc_day(clock_.unix_ms());
  store_.read([&](Connection& db) {
    auto query = db.prepare(
        "SELECT cell, sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)) FROM runs "
        "WHERE id >= ? AND id < ? GROUP BY cell");
    query.bind(1, first_run_id_at(today * kDayMs)).bind(2, first_run_id_at((today + 1) * kDayMs));
    while (query.step()) {
      const int64_t tokens = query.column_int(1);
      if (tokens > 0)
        limiter_->add_tokens(query.column_text(0), today, static_cast<uint64_t>(tokens));
    }
  });
}

void Limits::refuse(const char* limit, const std::string& message, int64_t retry_after_s) {
  if (auto* metrics = metrics::active()) metrics->rate_limited(limit);
  throw DomainError(ErrorKind::rate_limited, "rate_limited", message)
      .with_retry_after(retry_after_s < 1 ? 1 : retry_after_s);
}

void Limits::take_request(BucketKind kind, const std::string& key, const Rate& rate,
                          const char* limit, const std::string& message) {
  const std::chrono::nanoseconds wait = limiter_->take(kind, key, rate);
  if (wait.count() == 0) return;
  // Whole seconds, rounded up: a client that waits them finds a request's room.
  const int64_t seconds = (wait.count() + 999'999'999) / 1'000'000'000;
  refuse(limit, message + "; retry in " + std::to_string(seconds) + " s", seconds);
}

void Limits::admit_request(const Principal& who, const std::string& cell) {
  // The one look at the limits when none limits requests: a relaxed load or two.
  if (engine_admin(who) || !table_.any_limit_requests()) return;
  const CellLimits limits = cell.empty() ? table_.defaults() : table_.effective(cell);
  if (limits.token_rate)
    take_request(BucketKind::token, who.token_id, *limits.token_rate, kTokenRate,
                 "rate limit: this token may send " + rate_text(*limits.token_rate) +
                     (cell.empty() ? "" : " in cell '" + cell + "'") + " (token_rate)");
  if (limits.cell_rate && !cell.empty())
    take_request(
        BucketKind::cell, cell, *limits.cell_rate, kCellRate,
        "rate limit: cell '" + cell + "' takes " + rate_text(*limits.cell_rate) + " (cell_rate)");
}

RunAdmission Limits::admit_run(const Principal& who, const std::string& cell,
                               const std::string& actor) {
  const int64_t now_ms = clock_.unix_ms();
  const int64_t today = utc_day(now_ms);
  if (engine_admin(who)) return RunAdmission(*limiter_, cell, "", today);
  const CellLimits limits = table_.effective(cell);
  if (limits.cell_tokens_per_day && limiter_->tokens(cell, today) >= *limits.cell_tokens_per_day)
    refuse(kCellTokens,
           "quota: cell '" + cell + "' has used its " +
               std::to_string(*limits.cell_tokens_per_day) +
               " tokens of the day (cell_tokens_per_day); the day ends at " +
               day_start_text(today + 1),
           seconds_to_day_end(now_ms));
  // Cells cannot hold a '/' (core/cells/cell_rules.h): no two pairs make one key.
  std::string key = cell + "/" + actor;
  if (!limiter_->begin_run(key, limits.actor_runs))
    refuse(kActorRuns,
           "rate limit: actor '" + actor + "' has " + std::to_string(*limits.actor_runs) +
               " runs under way in cell '" + cell +
               "', the most it may (actor_runs); send it again once one ends",
           1);
  return RunAdmission(*limiter_, cell, std::move(key), today);
}

nlohmann::json Limits::report(const std::string& cell) const {
  const int64_t today = utc_day(clock_.unix_ms());
  return {{"cell", cell},
          {"own", table_.own(cell)},
          {"effective", to_json(table_.effective(cell))},
          {"tokens_today", limiter_->tokens(cell, today)},
          {"day_ends_at", day_start_text(today + 1)}};
}

nlohmann::json Limits::set_own(const std::string& cell, const nlohmann::json& own) {
  table_.set(cell, own);
  log_info("cell limits set", {{"cell", cell}, {"limits", own}});
  return report(cell);
}

void Limits::forget_cell(const std::string& cell) {
  table_.forget(cell);
  limiter_->forget_cell(cell);
}

}  // namespace agentrt::core::limits
