// How much of the audit log is kept and how refused authentications are coalesced: the
// config file's `audit` section (docs/operator-guide.md, "Audit log").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>

namespace agentrt::core {

struct AuditConfig {
  // Entries older than this many days are deleted as entries are written and at start;
  // 0 keeps them whatever their age (the counts below still hold).
  unsigned retention_days = 90;
  // The admin actions kept, newest first; older ones are deleted past it.
  uint64_t max_entries = 1000000;
  // The refused-authentication entries kept, apart from the admin actions, so that a
  // flood of refusals never pushes an admin action out.
  uint64_t max_refusals = 100000;
  // Refusals alike (one peer, token id, reason, route and status) within this window
  // become one entry with a count.
  unsigned refusal_window_ms = 1000;
  // The distinct refusals one window keeps apart; past it, a window's further ones are
  // counted in one entry per status (detail "coalesced").
  unsigned max_refusal_keys = 256;
};

// Applies the `audit` section; throws ConfigError naming the key (core/config/config.h).
void apply_audit_config(AuditConfig& audit, const nlohmann::json& section);

}  // namespace agentrt::core
