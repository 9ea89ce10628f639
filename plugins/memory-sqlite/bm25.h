// Okapi BM25, computed by the plugin instead of FTS5's bm25(): FTS5 derives each term's
// IDF by visiting every row that contains the term, whatever LIMIT the query has (about
// 18 ms for a word in 735k of 1M rows, measured on this machine), so a common word
// would make every search slow. Here the IDF comes from a bounded walk (search.cpp).
#pragma once

#include <cstdint>

namespace agentrt::memory_sqlite::bm25 {

// FTS5's defaults.
inline constexpr double kK1 = 1.2;
inline constexpr double kB = 0.75;

// ln(1 + (rows - df + 0.5) / (df + 0.5)): the Lucene form, which never goes negative
// for terms in more than half the rows (FTS5's form clamps those to a tiny constant).
double idf(int64_t rows, int64_t df);

// The term's contribution to one row's score before IDF: tf saturated by k1 and
// normalised by the row's length relative to the average.
double term_weight(int64_t tf, int64_t row_tokens, double average_tokens);

// Rows containing a term when only its `seen` newest matches were walked and the
// oldest of them has sequence number `oldest_seq`: the walk covered the seq range
// [oldest_seq, max_seq] of [min_seq, max_seq], so scale by the fraction it covered.
// Assumes the term's matches are spread evenly over time; clamped to [seen, rows].
int64_t estimate_df(int64_t seen, int64_t oldest_seq, int64_t min_seq, int64_t max_seq,
                    int64_t rows);

}  // namespace agentrt::memory_sqlite::bm25
