#include "core/audit/audit_config.h"

#include "core/config/config.h"

namespace agentrt::core {
namespace {

uint64_t expect_count(const nlohmann::json& value, const std::string& key, uint64_t min,
                      uint64_t max) {
  const bool whole =
      value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
  if (whole) {
    const uint64_t n = value.get<uint64_t>();
    if (n >= min && n <= max) return n;
  }
  reject_config_value(key, "an integer from " + std::to_string(min) + " to " + std::to_string(max),
                      value);
}

}  // namespace

void apply_audit_config(AuditConfig& audit, const nlohmann::json& section) {
  if (!section.is_object()) reject_config_value("audit", "an object", section);
  for (const auto& [name, value] : section.items()) {
    const std::string key = "audit." + name;
    if (name == "retention_days") {
      audit.retention_days = static_cast<unsigned>(expect_count(value, key, 0, 36500));
    } else if (name == "max_entries") {
      audit.max_entries = expect_count(value, key, 1, 1000000000);
    } else if (name == "max_refusals") {
      audit.max_refusals = expect_count(value, key, 1, 1000000000);
    } else if (name == "refusal_window_ms") {
      audit.refusal_window_ms = static_cast<unsigned>(expect_count(value, key, 10, 3600000));
    } else if (name == "max_refusal_keys") {
      audit.max_refusal_keys = static_cast<unsigned>(expect_count(value, key, 1, 100000));
    } else {
      throw ConfigError(key, "unknown config key '" + key + "'");
    }
  }
}

}  // namespace agentrt::core
