// Full-text search over one cell's visible entries, ranked by BM25 (higher is better).
//
// The query is user text, never FTS5 syntax: it is split by the index's own tokenizer
// and each term is searched as a quoted literal. Terms are OR-ed: an entry matching any
// term is a candidate, and entries matching more (and rarer) terms rank higher.
//
// Bounded cost: for each term only its newest matches are read, whatever the cell, and
// then filtered to the caller's cell, actor, namespace, session and layers. With K the
// configured search_candidates, a term reads at most K matches, and a query of T terms
// at most max(K, 4K / T) per term but never fewer than K / 4: a search reads at most 4K
// index rows however long the query. The price is recall for very common terms: an
// entry whose only match is a term with more matches than its window, older than that
// window, is not found; the same entry is still found through any rarer term of the
// query. A term's frequency (for its IDF) is exact within the window and extrapolated
// beyond it.
#pragma once

#include "connection.h"
#include "entry_codec.h"
#include "requests.h"

#include <cstddef>
#include <vector>

namespace agentrt::memory_sqlite {

// Distinct query terms beyond this are ignored (first come, first kept).
inline constexpr size_t kMaxQueryTerms = 16;

struct SearchHit {
  EntryRow row;
  double score = 0;
};

// Throws INVALID_ARGUMENT "query has no searchable words" when the query has no term.
std::vector<SearchHit> search_entries(Connection& c, const SearchRequest& request,
                                      int search_candidates);

// The window of newest matches each of `terms` terms reads (see above).
int candidates_per_term(int search_candidates, size_t terms);

}  // namespace agentrt::memory_sqlite
