// Full-text search over one cell's visible entries, ranked by BM25 (higher is better).
//
// The query is user text, never FTS5 syntax: it is split by the index's own tokenizer
// and each term is searched as a quoted literal. Terms are OR-ed: an entry matching any
// term is a candidate, and entries matching more (and rarer) terms rank higher.
//
// Per cell and per caller: each term is walked among the entries of the caller's scope
// only, the cell's shared entries and its actor's own, of the kinds of layer (shared,
// personal) the search asks for; an admin without an actor reads the cell's shared
// entries, or the whole cell when it asks for a personal layer (the index tags every
// entry with its cell and its scope, schema steps 4 and 6). BM25's row count, average
// length and term frequencies are those of the entries the search may return: the caller's
// visible entries in the layers and filters asked, their counts and tokens read from
// memory_totals (step 5). Nothing another cell stores, and no entry the caller may not
// see, changes a search's hits or scores.
//
// Bounded cost: for each term only the scope's newest matches are read, and then
// filtered to the caller's namespace, session and layers (unless the filters admit so
// few entries that they are read whole, kReadWholeDivisor below). With K the configured
// search_candidates, a term reads at most K matches, and a query of T terms at most
// max(K, 4K / T) per term but never fewer than K / 4: a search reads at most 4K index
// rows however long the query. The price is recall for very common terms: an entry
// whose only match is a term with more matches in the scope than its window, older than
// that window, is not found; the same entry is still found through any rarer term of
// the query. Other actors' private entries never take a place in the window. A term's
// frequency (for its IDF) is exact within the window and extrapolated beyond it over
// the scope's seq range.
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

// How a term's window is found. The tagged walk (the AND of the scope's tags and the
// term) reads the scope's matches only, but seeks in the tags' doclists for each: 10 µs a match
// for a rare word on the 1M-entry benchmark store. The shared walk reads the term's
// matches in every cell and looks each up (0.6 µs) to keep the scope's. A scope with at
// least this share of the store's entries tries the shared walk first, and leaves it
// for the tagged one when the word proves common or the walk would read more than twice
// the matches its share should need (search.cpp). Either walk finds the same matches.
inline constexpr double kSharedWalkMinShare = 0.25;

// A search whose filters admit at most this share of search_candidates entries reads
// them whole instead of walking the index: each entry's content is tokenized once, so
// no match is left out of a window and a word's frequency is exact. A session's
// entries, or an actor's in one agent namespace, are usually that few; the walk's
// window is drawn from the whole scope, where they can be crowded out.
inline constexpr int kReadWholeDivisor = 4;

// How search_entries finds its matches; tests force one way or the other.
struct SearchPlan {
  double shared_walk_min_share = kSharedWalkMinShare;
  int64_t read_whole_max = -1;  // -1: search_candidates / kReadWholeDivisor
};

// Throws INVALID_ARGUMENT "query has no searchable words" when the query has no term.
std::vector<SearchHit> search_entries(Connection& c, const SearchRequest& request,
                                      int search_candidates, const SearchPlan& plan = {});

// The window of newest matches each of `terms` terms reads (see above).
int candidates_per_term(int search_candidates, size_t terms);

}  // namespace agentrt::memory_sqlite
