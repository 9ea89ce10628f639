#include "core/limits/limit_settings.h"

#include "core/domain/json_text.h"

namespace agentrt::core::limits {
namespace {

using nlohmann::json;

constexpr size_t kShownBytes = 60;

std::string describe(const std::string& field) {
  return field.empty() ? "the limits" : "field '" + field + "'";
}

[[noreturn]] void refuse(const std::string& field, const std::string& what, const json& got) {
  throw LimitValueError(LimitValueError::Fault::bad_value, field,
                        "must be " + what + ", got " + json_excerpt(got, kShownBytes));
}

uint64_t whole_number(const json& value, const std::string& field, uint64_t max) {
  // Negative integers are number_integer; fractions and huge values are floats.
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)) {
    const uint64_t n = value.get<uint64_t>();
    if (n >= 1 && n <= max) return n;
  }
  refuse(field, "an integer from 1 to " + std::to_string(max), value);
}

std::optional<uint64_t> count_value(const json& value, const std::string& field, uint64_t max) {
  if (value.is_null()) return std::nullopt;
  return whole_number(value, field, max);
}

std::optional<Rate> rate_value(const json& value, const std::string& field) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_object())
    refuse(field, "null or an object with requests_per_minute and burst", value);
  Rate rate;
  for (const auto& [name, member] : value.items()) {
    const std::string path = field + "." + name;
    if (name == "requests_per_minute")
      rate.requests_per_minute = whole_number(member, path, kMaxRequestsPerMinute);
    else if (name == "burst")
      rate.burst = whole_number(member, path, kMaxBurst);
    else
      throw LimitValueError(LimitValueError::Fault::unknown, path, "is not a rate's setting");
  }
  for (const char* required : {"requests_per_minute", "burst"}) {
    if (!value.contains(required))
      throw LimitValueError(LimitValueError::Fault::missing, field + "." + required, "is required");
  }
  return rate;
}

json rate_json(const std::optional<Rate>& rate) {
  if (!rate) return nullptr;
  return {{"burst", rate->burst}, {"requests_per_minute", rate->requests_per_minute}};
}

json count_json(const std::optional<uint64_t>& count) {
  return count ? json(*count) : json(nullptr);
}

}  // namespace

LimitValueError::LimitValueError(Fault fault, std::string field, std::string problem)
    : DomainError(ErrorKind::invalid, describe(field) + " " + problem),
      fault_(fault),
      field_(std::move(field)),
      problem_(std::move(problem)) {}

CellLimits apply_limits(CellLimits base, const nlohmann::json& object) {
  if (!object.is_object())
    refuse("", "an object of token_rate, cell_rate, actor_runs, cell_tokens_per_day", object);
  for (const auto& [name, value] : object.items()) {
    if (name == "token_rate")
      base.token_rate = rate_value(value, name);
    else if (name == "cell_rate")
      base.cell_rate = rate_value(value, name);
    else if (name == "actor_runs")
      base.actor_runs = count_value(value, name, kMaxActorRuns);
    else if (name == "cell_tokens_per_day")
      base.cell_tokens_per_day = count_value(value, name, kMaxTokensPerDay);
    else
      throw LimitValueError(LimitValueError::Fault::unknown, name,
                            "is not a limit (token_rate, cell_rate, actor_runs, "
                            "cell_tokens_per_day)");
  }
  return base;
}

nlohmann::json to_json(const CellLimits& limits) {
  return {{"actor_runs", count_json(limits.actor_runs)},
          {"cell_rate", rate_json(limits.cell_rate)},
          {"cell_tokens_per_day", count_json(limits.cell_tokens_per_day)},
          {"token_rate", rate_json(limits.token_rate)}};
}

}  // namespace agentrt::core::limits
