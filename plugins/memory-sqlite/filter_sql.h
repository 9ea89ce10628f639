// SQL for the operations that address one layer through a filter (count, list,
// clear_layer). Each filter shape gets its own statement text: a key lookup in
// memory_totals, or one naming the index that turns it into a range scan, so the plan
// never depends on the planner's guesses.
#pragma once

#include "requests.h"
#include "sqlite_db.h"

#include <string>

namespace agentrt::memory_sqlite {

// Which optional filters apply to a statement over one layer: the actor never applies
// to a shared layer (environment, consensus).
struct FilterShape {
  bool actor = false;
  bool ns = false;
  bool session = false;

  static FilterShape of(const Filter& filter, int layer);
  // 0..7, for statement caches; without the session bit it is also the on-disk shape
  // code of memory_totals (schema.cpp), so the bits never change.
  constexpr int key() const { return (actor ? 1 : 0) | (ns ? 2 : 0) | (session ? 4 : 0); }
  static constexpr FilterShape from_key(int key) {
    return {(key & 1) != 0, (key & 2) != 0, (key & 4) != 0};
  }
};
inline constexpr int kFilterShapes = 8;

// The columns entry_codec reads, in its order, for SELECTs of whole entries.
extern const char* const kEntryColumns;

// Parameters: :cell, :layer and one per applied filter (:actor, :ns, :sid). The texts
// are built once; callers use them as statement-cache keys.
// A count without a session filter reads its tally from memory_totals (one row, or
// none for zero); with one, it is COUNT(*) over memory_by_session. Either way the
// statement returns at most one row whose column 0 is the count.
const std::string& count_sql(FilterShape shape);
// The same entries' number and their tokens (columns 0 and 1, at most one row; none
// for zero): BM25's statistics over what a search may return.
const std::string& visible_stats_sql(FilterShape shape);
// Also :before (only entries with a smaller seq) and :limit; newest first.
const std::string& list_sql(FilterShape shape);
const std::string& clear_sql(FilterShape shape);
// Every entry the filter admits in the layer: seq, content and token count, in no
// particular order (search reads a small filtered set whole).
const std::string& scan_sql(FilterShape shape);

// Binds :cell, :layer and the filters `shape` applies.
void bind_layer_filter(Statement& s, const Filter& filter, int layer, FilterShape shape);

// A predicate over the row alias `e` that is true exactly for the entries `filter`
// lets its caller see, whatever the layer. Parameters: :cell, :actor, :ns, :sid (bind
// them all; null means "any") — see bind_visibility.
extern const char* const kVisibleSql;
// A search's scope (search.cpp): the entries of the cell that the caller's actor may
// see, in the layers of the :scope_layers bit mask (:cell, :actor, :scope_layers).
extern const char* const kScopeSql;
void bind_visibility(Statement& s, const Filter& filter);

// Search's walk over one term: its :candidates newest FTS matches (:match is a
// term_match or a tags_term_match, fts_support.h) joined to their entries. Columns:
// seq, term frequency, the entry's token count, whether it is in the caller's scope
// (kScopeSql), and whether kVisibleSql and the :layers bit mask admit it. Needs agentrt_term_stat
// (fts_support.h) on the connection.
const std::string& search_term_sql();

// The rows in the whole FTS index, read off any one match of :match (no row when
// nothing matches).
const std::string& index_rows_sql();

// Seven rows, one a layer: the layer, and the smallest and largest seq of :cell's
// entries in it, or with `actor` of those :actor may see (NULLs when there are none).
const std::string& layer_seq_ranges_sql(bool actor);

}  // namespace agentrt::memory_sqlite
