// What GET /admin/audit asks for: a page, newest first, of the entries that match
// every filter given.
#pragma once

#include "core/domain/paging.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core {

struct AuditQuery {
  PageRequest page;
  std::optional<std::string> actor;   // exact
  std::optional<std::string> action;  // exact, or every action it begins when it ends in '.'
  std::optional<int64_t> since_ms;    // at or after, Unix milliseconds
  std::optional<int64_t> until_ms;    // before
};

// From the query parameters' raw values; throws invalid() naming the parameter.
AuditQuery parse_audit_query(const std::optional<std::string>& limit,
                             const std::optional<std::string>& cursor,
                             const std::optional<std::string>& actor,
                             const std::optional<std::string>& action,
                             const std::optional<std::string>& since,
                             const std::optional<std::string>& until);

}  // namespace agentrt::core
