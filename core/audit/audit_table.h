// The audit log's rows in the state store (migration 10): appended, read page by page,
// and pruned by the retention rules, always inside a transaction the caller holds.
// Nothing else changes or deletes a row.
#pragma once

#include "core/audit/audit_config.h"
#include "core/audit/audit_entry.h"
#include "core/audit/audit_query.h"
#include "core/store/sqlite.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace agentrt::core {

// Inserts `entries`, all of one kind, then deletes that kind's oldest past `max_kept`.
void insert_audit_entries(Connection& db, const std::vector<AuditEntry>& entries,
                          uint64_t max_kept);

// Deletes the entries that happened before `before_ms`; returns how many.
int64_t prune_audit_before(Connection& db, int64_t before_ms);

// One page of the entries `query` asks for, newest first: {"data","next_cursor"}.
nlohmann::json read_audit_page(Connection& db, const AuditQuery& query);

}  // namespace agentrt::core
