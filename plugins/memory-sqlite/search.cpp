#include "search.h"

#include "bm25.h"
#include "filter_sql.h"
#include "fts_support.h"

#include <agentrt/plugin.hpp>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

namespace agentrt::memory_sqlite {
namespace {

// Two subqueries, because SQLite answers a lone min() or max() from the b-tree's edge
// but scans the table for both in one SELECT.
const std::string& seq_range_sql() {
  static const std::string sql =
      "SELECT (SELECT min(seq) FROM memory_entries), (SELECT max(seq) FROM memory_entries)";
  return sql;
}

const std::string& by_seq_sql() {
  static const std::string sql =
      std::string("SELECT ") + kEntryColumns + " FROM memory_entries WHERE seq = :seq";
  return sql;
}

struct Match {
  int64_t seq;
  int64_t tf;
  int64_t tokens;
};

// What one term's walk saw: every match it read, and the ones the caller may see.
struct TermScan {
  int64_t seen = 0;
  int64_t oldest_seq = 0;
  int64_t corpus_rows = 0;
  int64_t corpus_tokens = 0;
  std::vector<Match> visible;
};

class Ranker {
 public:
  Ranker(Connection& c, const SearchRequest& request, int candidates)
      : c_(c), request_(request), candidates_(candidates) {}

  void add_term(const std::string& term) {
    TermScan scan = walk(term);
    if (scan.visible.empty()) return;
    int64_t df = scan.seen < candidates_ ? scan.seen : extrapolated_df(scan);
    double idf = bm25::idf(scan.corpus_rows, df);
    double average = scan.corpus_rows > 0 ? static_cast<double>(scan.corpus_tokens) /
                                                static_cast<double>(scan.corpus_rows)
                                          : 0;
    for (const Match& m : scan.visible)
      scores_[m.seq] += idf * bm25::term_weight(m.tf, m.tokens, average);
  }

  // The best `limit`, best first; equal scores put the newer entry first.
  std::vector<std::pair<int64_t, double>> best(size_t limit) const {
    std::vector<std::pair<int64_t, double>> ranked(scores_.begin(), scores_.end());
    auto better = [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first > b.first;
    };
    size_t keep = std::min(limit, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                      ranked.end(), better);
    ranked.resize(keep);
    return ranked;
  }

 private:
  TermScan walk(const std::string& term) {
    Statement& s = c_.prepared(search_term_sql());
    StatementUse use(s);
    s.bind(":match", fts_literal(term));
    s.bind(":candidates", int64_t{candidates_});
    s.bind(":layers", static_cast<int64_t>(request_.layers));
    bind_visibility(s, request_.filter);
    TermScan scan;
    while (use->step()) {
      ++scan.seen;
      scan.oldest_seq = s.column_int(0);
      scan.corpus_rows = s.column_int(2);
      scan.corpus_tokens = s.column_int(3);
      if (s.column_int(5) != 0)
        scan.visible.push_back({s.column_int(0), s.column_int(1), s.column_int(4)});
    }
    return scan;
  }

  int64_t extrapolated_df(const TermScan& scan) {
    if (!seq_range_) {
      Statement& s = c_.prepared(seq_range_sql());
      StatementUse use(s);
      use->step();
      seq_range_ = std::make_pair(s.column_int(0), s.column_int(1));
    }
    return bm25::estimate_df(scan.seen, scan.oldest_seq, seq_range_->first, seq_range_->second,
                             scan.corpus_rows);
  }

  Connection& c_;
  const SearchRequest& request_;
  const int candidates_;
  std::optional<std::pair<int64_t, int64_t>> seq_range_;
  std::unordered_map<int64_t, double> scores_;
};

EntryRow row_by_seq(Connection& c, int64_t seq) {
  Statement& s = c.prepared(by_seq_sql());
  StatementUse use(s);
  s.bind(":seq", seq);
  // The read transaction keeps every candidate of this search alive until the end.
  if (!use->step()) throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: search row vanished");
  return read_entry_row(s);
}

}  // namespace

int candidates_per_term(int search_candidates, size_t terms) {
  int64_t k = search_candidates;
  int64_t share = 4 * k / static_cast<int64_t>(std::max<size_t>(terms, 1));
  return static_cast<int>(std::clamp(share, std::max<int64_t>(k / 4, 1), k));
}

std::vector<SearchHit> search_entries(Connection& c, const SearchRequest& request,
                                      int search_candidates) {
  std::vector<std::string> terms = c.tokenizer().distinct_terms(request.query, kMaxQueryTerms);
  if (terms.empty())
    throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "query has no searchable words");
  std::vector<SearchHit> hits;
  if (request.layers == 0) return hits;

  ReadSnapshot snapshot(c);
  Ranker ranker(c, request, candidates_per_term(search_candidates, terms.size()));
  for (const std::string& term : terms) ranker.add_term(term);
  for (const auto& [seq, score] : ranker.best(static_cast<size_t>(request.limit)))
    hits.push_back({row_by_seq(c, seq), score});
  return hits;
}

}  // namespace agentrt::memory_sqlite
