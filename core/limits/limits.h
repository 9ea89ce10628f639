// Rate limits and quotas (docs/operator-guide.md, "Rate limits and quotas"): the policy
// over what RateLimiter counts. Each request of a token other than an engine admin's
// takes from its token's bucket and its cell's; each run counts among its actor's runs
// under way and, once it ends, its tokens in its cell's UTC day. What goes past a limit
// is refused with ErrorKind::rate_limited, a message that names the limit (never a
// token), and a Retry-After; and counted in agentrt_rate_limited_total.
//
// Engine admins (an admin token of no cell) are never limited: the operator's way to
// raise a limit must not be behind it. Their runs' tokens still count in their cell's
// day. An admin token scoped to a cell is the tenant's, and is limited as its cell is.
#pragma once

#include "core/auth/principal.h"
#include "core/limits/cell_limit_table.h"
#include "core/limits/rate_limiter.h"
#include "core/limits/run_admission.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace agentrt::core::limits {

// The label values of agentrt_rate_limited_total.
inline constexpr const char* kTokenRate = "token_rate";
inline constexpr const char* kCellRate = "cell_rate";
inline constexpr const char* kActorRuns = "actor_runs";
inline constexpr const char* kCellTokens = "cell_tokens";

class Limits {
 public:
  Limits(StateStore& store, const CellLimits& defaults, std::unique_ptr<RateLimiter> limiter,
         const LimitClock& clock = real_clock());

  // At start, before serving: the cells' own limits, and the tokens of today's stored
  // runs of each cell (so that a restart does not hand a cell its day's quota again).
  void load();

  // A request to `cell` ("" for a root route) by `who`: returns, or throws rate_limited.
  void admit_request(const Principal& who, const std::string& cell);
  // A run of `actor` in `cell` about to begin: its admission, or rate_limited.
  RunAdmission admit_run(const Principal& who, const std::string& cell, const std::string& actor);

  // GET /admin/cells/{id}/limits: {"cell","own","effective","tokens_today","day_ends_at"}.
  nlohmann::json report(const std::string& cell) const;
  // PUT: replaces the cell's own limits (LimitValueError when refused); its report.
  nlohmann::json set_own(const std::string& cell, const nlohmann::json& own);
  // After a cell's deletion.
  void forget_cell(const std::string& cell);

 private:
  [[noreturn]] void refuse(const char* limit, const std::string& message, int64_t retry_after_s);
  void take_request(BucketKind kind, const std::string& key, const Rate& rate, const char* limit,
                    const std::string& message);

  StateStore& store_;
  CellLimitTable table_;
  std::unique_ptr<RateLimiter> limiter_;
  const LimitClock& clock_;
};

}  // namespace agentrt::core::limits
