#include "core/audit/audit_table.h"

#include "core/store/paged_query.h"

namespace agentrt::core {
namespace {

constexpr const char* kColumns =
    "seq, at_ms, last_at_ms, count, actor, token_id, peer, request_id, action, target, cell, "
    "status, error, detail";

void bind_optional(Statement& statement, int index, const std::optional<std::string>& value) {
  if (value)
    statement.bind(index, *value);
  else
    statement.bind_null(index);
}

std::optional<std::string> optional_text(const Statement& row, int index) {
  if (row.column_is_null(index)) return std::nullopt;
  return row.column_text(index);
}

AuditEntry read_entry(const Statement& row) {
  AuditEntry entry;
  entry.at_ms = row.column_int(1);
  if (!row.column_is_null(2)) entry.last_at_ms = row.column_int(2);
  entry.count = row.column_int(3);
  entry.actor = optional_text(row, 4);
  entry.token_id = optional_text(row, 5);
  entry.peer = optional_text(row, 6);
  entry.request_id = optional_text(row, 7);
  entry.action = row.column_text(8);
  entry.target = optional_text(row, 9);
  entry.cell = optional_text(row, 10);
  entry.status = static_cast<int>(row.column_int(11));
  entry.error = optional_text(row, 12);
  entry.detail = optional_text(row, 13);
  return entry;
}

void insert_entry(Connection& db, const AuditEntry& entry) {
  Statement insert = db.prepare(
      "INSERT INTO audit_log(kind, at_ms, last_at_ms, count, actor, token_id, peer, request_id, "
      "action, target, cell, status, error, detail) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  insert.bind(1, audit_kind_name(entry.kind)).bind(2, entry.at_ms).bind(4, entry.count);
  if (entry.last_at_ms)
    insert.bind(3, *entry.last_at_ms);
  else
    insert.bind_null(3);
  bind_optional(insert, 5, entry.actor);
  bind_optional(insert, 6, entry.token_id);
  bind_optional(insert, 7, entry.peer);
  bind_optional(insert, 8, entry.request_id);
  insert.bind(9, entry.action);
  bind_optional(insert, 10, entry.target);
  bind_optional(insert, 11, entry.cell);
  insert.bind(12, int64_t{entry.status});
  bind_optional(insert, 13, entry.error);
  bind_optional(insert, 14, entry.detail);
  insert.run();
}

// Moves `kind`'s count by `delta`; returns the new count.
int64_t add_to_count(Connection& db, const char* kind, int64_t delta) {
  db.prepare("UPDATE audit_counts SET entries = max(entries + ?2, 0) WHERE kind = ?1")
      .bind(1, kind)
      .bind(2, delta)
      .run();
  Statement count = db.prepare("SELECT entries FROM audit_counts WHERE kind = ?");
  return count.bind(1, kind).step() ? count.column_int(0) : 0;
}

}  // namespace

void insert_audit_entries(Connection& db, const std::vector<AuditEntry>& entries,
                          uint64_t max_kept) {
  if (entries.empty()) return;
  const char* kind = audit_kind_name(entries.front().kind);
  for (const AuditEntry& entry : entries) insert_entry(db, entry);
  const int64_t kept = add_to_count(db, kind, static_cast<int64_t>(entries.size()));
  const int64_t excess = kept - static_cast<int64_t>(max_kept);
  if (excess <= 0) return;
  // The oldest of the kind, through its index: a count kept in the table spares a
  // count(*) of up to a million rows at every write.
  db.prepare(
        "DELETE FROM audit_log WHERE seq IN "
        "(SELECT seq FROM audit_log WHERE kind = ?1 ORDER BY seq LIMIT ?2)")
      .bind(1, kind)
      .bind(2, excess)
      .run();
  add_to_count(db, kind, -int64_t{db.changes()});
}

int64_t prune_audit_before(Connection& db, int64_t before_ms) {
  int64_t pruned = 0;
  for (AuditKind kind : {AuditKind::action, AuditKind::refusal}) {
    db.prepare("DELETE FROM audit_log WHERE at_ms < ?2 AND kind = ?1")
        .bind(1, audit_kind_name(kind))
        .bind(2, before_ms)
        .run();
    const int gone = db.changes();
    if (gone == 0) continue;
    add_to_count(db, audit_kind_name(kind), -int64_t{gone});
    pruned += gone;
  }
  return pruned;
}

nlohmann::json read_audit_page(Connection& db, const AuditQuery& query) {
  // Only the filters given are in the text, so each combination is its own compiled
  // statement (a handful), and each can use its index.
  std::string sql = std::string("SELECT ") + kColumns + " FROM audit_log WHERE seq < ?1";
  if (query.actor) sql += " AND actor = ?2";
  if (query.action && query.action->back() == '.')
    sql += " AND action >= ?3 AND action < ?4";
  else if (query.action)
    sql += " AND action = ?3";
  if (query.since_ms) sql += " AND at_ms >= ?5";
  if (query.until_ms) sql += " AND at_ms < ?6";
  sql += " ORDER BY seq DESC LIMIT ?7";
  Statement rows = db.prepare(sql);
  rows.bind(1, query.page.after.value_or(INT64_MAX));
  if (query.actor) rows.bind(2, *query.actor);
  if (query.action) {
    rows.bind(3, *query.action);
    // Every text that begins with "provider." sorts from "provider." to "provider/".
    if (query.action->back() == '.')
      rows.bind(4, query.action->substr(0, query.action->size() - 1) + "/");
  }
  if (query.since_ms) rows.bind(5, *query.since_ms);
  if (query.until_ms) rows.bind(6, *query.until_ms);
  rows.bind(7, int64_t{query.page.limit} + 1);
  return read_page(rows, query.page.limit,
                   [](const Statement& row) { return to_json(read_entry(row)); });
}

}  // namespace agentrt::core
