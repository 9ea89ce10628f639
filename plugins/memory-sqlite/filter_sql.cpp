#include "filter_sql.h"

#include "layers.h"
#include "schema.h"

#include <array>

namespace agentrt::memory_sqlite {
namespace {

// The most selective filter leads: a session belongs to one actor, and an actor's
// entries in a layer are usually fewer than a namespace's (an agent namespace is
// shared by the actors that use that agent). The index after the leading column
// holds seq, then the filters that can follow it, so the rest is checked in the index.
const char* index_for(FilterShape shape) {
  if (shape.session) return kIndexBySession;  // (cell, layer, session_id, seq, actor, ns)
  if (shape.actor) return kIndexByActor;      // (cell, layer, actor, seq, namespace)
  if (shape.ns) return kIndexByNamespace;     // (cell, layer, namespace) + rowid
  return kIndexByLayer;                       // (cell, layer) + rowid
}

std::string where_clause(FilterShape shape) {
  std::string where = " WHERE cell = :cell AND layer = :layer";
  if (shape.actor) where += " AND actor = :actor";
  if (shape.ns) where += " AND namespace = :ns";
  if (shape.session) where += " AND session_id = :sid";
  return where;
}

std::string from_clause(FilterShape shape) {
  return std::string(" FROM memory_entries INDEXED BY ") + index_for(shape);
}

// One statement text per filter shape, built once.
template <class Build>
std::array<std::string, kFilterShapes> per_shape(Build build) {
  std::array<std::string, kFilterShapes> sql;
  for (int key = 0; key < kFilterShapes; ++key)
    sql[static_cast<size_t>(key)] = build(FilterShape::from_key(key));
  return sql;
}

}  // namespace

const char* const kEntryColumns =
    "id, layer, requested_layer, actor, namespace, session_id, content, metadata, "
    "created_at, updated_at, seq";

#define AGENTRT_MAY_SEE_SQL "e.cell = :cell AND (:actor IS NULL OR e.layer < 2 OR e.actor = :actor)"
const char* const kScopeSql = "(" AGENTRT_MAY_SEE_SQL " AND ((:scope_layers >> e.layer) & 1))";
const char* const kVisibleSql = "(" AGENTRT_MAY_SEE_SQL
                                " AND (:ns IS NULL OR e.namespace = :ns)"
                                " AND (:sid IS NULL OR e.session_id = :sid))";
#undef AGENTRT_MAY_SEE_SQL
static_assert(kFirstPersonalLayer == 2,
              "kVisibleSql and the memory_totals triggers spell the shared layers as layer < 2");
static_assert(FilterShape{true, false, false}.key() == 1 &&
                  FilterShape{false, true, false}.key() == 2,
              "memory_totals stores these shape codes");

FilterShape FilterShape::of(const Filter& filter, int layer) {
  return {filter.actor.has_value() && !is_shared_layer(layer), filter.ns.has_value(),
          filter.session_id.has_value()};
}

// The tally's full key for one shape. A column the shape does not filter is matched
// against '', which is what the triggers store there.
std::string totals_sql(FilterShape shape, const char* columns = "n") {
  return std::string("SELECT ") + columns + " FROM " + kTotalsTable +
         " WHERE cell = :cell AND layer = :layer AND shape = " + std::to_string(shape.key()) +
         " AND actor = " + (shape.actor ? ":actor" : "''") +
         " AND ns = " + (shape.ns ? ":ns" : "''");
}

const std::string& count_sql(FilterShape shape) {
  static const auto sql = per_shape([](FilterShape s) {
    if (!s.session) return totals_sql(s);
    return "SELECT count(*)" + from_clause(s) + where_clause(s);
  });
  return sql[static_cast<size_t>(shape.key())];
}

const std::string& visible_stats_sql(FilterShape shape) {
  static const auto sql = per_shape([](FilterShape s) {
    if (!s.session) return totals_sql(s, "n, tokens");
    return "SELECT count(*), total(token_count)" + from_clause(s) + where_clause(s);
  });
  return sql[static_cast<size_t>(shape.key())];
}

const std::string& list_sql(FilterShape shape) {
  static const auto sql = per_shape([](FilterShape s) {
    return std::string("SELECT ") + kEntryColumns + from_clause(s) + where_clause(s) +
           " AND seq < :before AND token_count <= :max_tokens ORDER BY seq DESC LIMIT :limit";
  });
  return sql[static_cast<size_t>(shape.key())];
}

const std::string& scan_sql(FilterShape shape) {
  static const auto sql = per_shape([](FilterShape s) {
    return "SELECT seq, content, token_count" + from_clause(s) + where_clause(s);
  });
  return sql[static_cast<size_t>(shape.key())];
}

const std::string& clear_sql(FilterShape shape) {
  static const auto sql =
      per_shape([](FilterShape s) { return "DELETE" + from_clause(s) + where_clause(s); });
  return sql[static_cast<size_t>(shape.key())];
}

// CROSS JOIN keeps the FTS walk as the outer loop, so it stops after :candidates rows
// instead of probing the index once per entry of the cell. The planner would look the
// candidates up in the table; the narrow covering index is several times faster.
const std::string& search_term_sql() {
  static const std::string sql =
      std::string("SELECT c.r, c.tf, e.token_count, ") + kScopeSql + ", " + kVisibleSql +
      " AND ((:layers >> e.layer) & 1)"
      " FROM (SELECT rowid AS r, agentrt_term_stat(memory_fts, 0) AS tf"
      " FROM memory_fts WHERE memory_fts MATCH :match ORDER BY rowid DESC LIMIT :candidates)"
      " AS c CROSS JOIN memory_entries AS e INDEXED BY " +
      kIndexBySeq + " ON e.seq = c.r";
  return sql;
}

const std::string& index_rows_sql() {
  static const std::string sql =
      "SELECT agentrt_term_stat(memory_fts, 1) FROM memory_fts WHERE memory_fts MATCH :match"
      " LIMIT 1";
  return sql;
}

// Each bound is one lookup at the edge of a (cell, layer) range of memory_by_layer, or
// of a (cell, layer, actor) range of memory_by_actor; SQLite has no such shortcut for
// min() or max() over several layers at once.
const std::string& layer_seq_ranges_sql(bool actor) {
  static const auto sql = [] {
    std::array<std::string, 2> texts;
    for (int with_actor = 0; with_actor < 2; ++with_actor) {
      std::string rows;
      for (int layer = 0; layer < kLayerCount; ++layer) {
        FilterShape shape{with_actor != 0 && !is_shared_layer(layer), false, false};
        std::string range = from_clause(shape) +
                            " WHERE cell = :cell AND layer = " + std::to_string(layer) +
                            (shape.actor ? " AND actor = :actor)" : ")");
        rows += std::string(layer ? " UNION ALL " : "") + "SELECT " + std::to_string(layer) +
                ", (SELECT min(seq)" + range + ", (SELECT max(seq)" + range;
      }
      texts[static_cast<size_t>(with_actor)] = rows;
    }
    return texts;
  }();
  return sql[actor ? 1 : 0];
}

void bind_layer_filter(Statement& s, const Filter& filter, int layer, FilterShape shape) {
  s.bind(":cell", filter.cell);
  s.bind(":layer", int64_t{layer});
  if (shape.actor) s.bind(":actor", *filter.actor);
  if (shape.ns) s.bind(":ns", *filter.ns);
  if (shape.session) s.bind(":sid", *filter.session_id);
}

void bind_visibility(Statement& s, const Filter& filter) {
  s.bind(":cell", filter.cell);
  s.bind(":actor", filter.actor);
  s.bind(":ns", filter.ns);
  s.bind(":sid", filter.session_id);
}

}  // namespace agentrt::memory_sqlite
