#include "core/audit/audit_query.h"

#include "core/audit/audit_entry.h"
#include "core/domain/errors.h"

namespace agentrt::core {
namespace {

std::optional<int64_t> time_param(const std::optional<std::string>& value, const char* name) {
  if (!value) return std::nullopt;
  std::optional<int64_t> at = parse_rfc3339(*value);
  if (!at)
    throw invalid(std::string("query parameter '") + name +
                  "' must be an RFC 3339 date-time such as 2026-12-07T17:00:00Z");
  return at;
}

void require_non_empty(const std::optional<std::string>& value, const char* name) {
  if (value && value->empty())
    throw invalid(std::string("query parameter '") + name + "' must not be empty");
}

}  // namespace

AuditQuery parse_audit_query(const std::optional<std::string>& limit,
                             const std::optional<std::string>& cursor,
                             const std::optional<std::string>& actor,
                             const std::optional<std::string>& action,
                             const std::optional<std::string>& since,
                             const std::optional<std::string>& until) {
  AuditQuery query;
  query.page = parse_page_request(limit, cursor);
  require_non_empty(actor, "actor");
  require_non_empty(action, "action");
  query.actor = actor;
  query.action = action;
  query.since_ms = time_param(since, "since");
  query.until_ms = time_param(until, "until");
  if (query.since_ms && query.until_ms && *query.since_ms > *query.until_ms)
    throw invalid("query parameter 'since' is after 'until'");
  return query;
}

}  // namespace agentrt::core
