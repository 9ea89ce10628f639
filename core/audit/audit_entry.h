// One entry of the audit log: who did what, when, and with what result. Names and ids
// only, never a request's body: no secret (a token, a key) can reach the log through
// an entry.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

// What an entry records; each kind is kept and pruned on its own (audit_config.h).
enum class AuditKind { action, refusal };

// The action of every refused authentication.
inline constexpr const char* kAuthRefused = "auth.refused";

struct AuditEntry {
  AuditKind kind = AuditKind::action;
  int64_t at_ms = 0;                    // when, in Unix milliseconds (the first, coalesced)
  std::optional<int64_t> last_at_ms;    // a coalesced entry's last occurrence
  int64_t count = 1;                    // occurrences a coalesced entry stands for
  std::optional<std::string> actor;     // the principal's actor
  std::optional<std::string> token_id;  // the token's public id, never its secret
  std::optional<std::string> peer;      // the client's address
  std::optional<std::string> request_id;
  std::string action;                 // "cell.create", "provider.delete", "auth.refused", ...
  std::optional<std::string> target;  // the id or name acted on
  std::optional<std::string> cell;
  int status = 0;                     // the HTTP status answered
  std::optional<std::string> error;   // the error code; none when the action succeeded
  std::optional<std::string> detail;  // a refusal's reason ("expired", "not_admin", ...)
};

const char* audit_kind_name(AuditKind kind);

// The entry as GET /admin/audit shows it (docs/openapi.yaml, AuditEntry).
nlohmann::json to_json(const AuditEntry& entry);

int64_t unix_ms_now();
// RFC 3339 in UTC with milliseconds: 2026-12-07T17:09:18.123Z.
std::string rfc3339_ms(int64_t unix_ms);
// An RFC 3339 date-time (a 'Z' or a numeric offset; fractions of a second read to the
// millisecond) as Unix milliseconds; none when `text` is not one.
std::optional<int64_t> parse_rfc3339(std::string_view text);

}  // namespace agentrt::core
