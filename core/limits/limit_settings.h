// The limits a cell's requests and runs are held to (docs/operator-guide.md, "Rate
// limits and quotas"), and the one reader of their JSON: the config file's
// `limits.cell_defaults` and the body of PUT /admin/cells/{id}/limits have the same
// shape, so a value the file takes the API takes too, and the other way round.
#pragma once

#include "core/domain/errors.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core::limits {

// A token bucket: `burst` requests at once, then one every 60 / requests_per_minute
// seconds. Per minute, as model providers state theirs, so that an operator can copy
// a provider's figure; a per-second rate could not say "one every ten seconds".
struct Rate {
  uint64_t requests_per_minute = 0;
  uint64_t burst = 0;
  bool operator==(const Rate& other) const {
    return requests_per_minute == other.requests_per_minute && burst == other.burst;
  }
};

// What a cell is held to; none: no limit of that kind.
struct CellLimits {
  std::optional<Rate> token_rate;               // each token's requests in the cell
  std::optional<Rate> cell_rate;                // the cell's requests, all tokens together
  std::optional<uint64_t> actor_runs;           // runs under way at once, per actor
  std::optional<uint64_t> cell_tokens_per_day;  // input + output tokens a UTC day
  bool operator==(const CellLimits& other) const {
    return token_rate == other.token_rate && cell_rate == other.cell_rate &&
           actor_runs == other.actor_runs && cell_tokens_per_day == other.cell_tokens_per_day;
  }
  bool limits_requests() const { return token_rate.has_value() || cell_rate.has_value(); }
};

inline constexpr uint64_t kMaxRequestsPerMinute = 60'000'000;  // a million a second
inline constexpr uint64_t kMaxBurst = 1'000'000;
inline constexpr uint64_t kMaxActorRuns = 100'000;
inline constexpr uint64_t kMaxTokensPerDay = 1'000'000'000'000'000;

// A value the reader refused. `field` is its path inside the limits object
// ("token_rate.burst"; "" for the object itself); `problem` finishes a sentence that
// names it: "must be an integer from 1 to 1000000, got 0", "is required", "is not a
// limit". Each caller names the field its own way (a config key, an API field).
class LimitValueError : public DomainError {
 public:
  enum class Fault { bad_value, missing, unknown };
  LimitValueError(Fault fault, std::string field, std::string problem);
  Fault fault() const { return fault_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  Fault fault_;
  std::string field_;
  std::string problem_;
};

// `object` over `base`: each key it has replaces base's (null: no limit), a key it
// leaves out keeps base's. Throws LimitValueError.
CellLimits apply_limits(CellLimits base, const nlohmann::json& object);

// Every kind, null where there is no limit.
nlohmann::json to_json(const CellLimits& limits);

}  // namespace agentrt::core::limits
