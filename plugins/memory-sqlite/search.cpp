#include "search.h"

#include "bm25.h"
#include "filter_sql.h"
#include "fts_support.h"
#include "layers.h"

#include <agentrt/plugin.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

namespace agentrt::memory_sqlite {
namespace {

const std::string& by_seq_sql() {
  static const std::string sql =
      std::string("SELECT ") + kEntryColumns + " FROM memory_entries WHERE seq = :seq";
  return sql;
}

// Entries and their tokens in the layers of `layers`, as `filter` admits them: one tally
// per layer (a short range scan with a session filter), in the caller's snapshot.
struct Corpus {
  int64_t entries = 0;
  int64_t tokens = 0;
};

Corpus corpus_of(Connection& c, const Filter& filter, LayerMask layers) {
  Corpus corpus;
  for (int layer = 0; layer < kLayerCount; ++layer) {
    if (((layers >> layer) & 1) == 0) continue;
    FilterShape shape = FilterShape::of(filter, layer);
    Statement& s = c.prepared(visible_stats_sql(shape));
    StatementUse use(s);
    bind_layer_filter(s, filter, layer, shape);
    if (!use->step()) continue;  // no tally row: no entry
    corpus.entries += s.column_int(0);
    corpus.tokens += s.column_int(1);
  }
  return corpus;
}

struct Match {
  int64_t seq;
  int64_t tf;
  int64_t tokens;
};

// Where a search's windows are drawn from: the entries of the cell its caller may see,
// in the kinds of layer (shared, an actor's own) it asks for, so that neither another
// actor's private entries nor the caller's entries of a kind of layer it did not ask
// for take a place in a window. The index marks them with words of the cell_tag column
// (schema steps 4 and 6): an admin without an actor has no word for the cell's
// personal entries alone and reads the whole cell's.
struct Scope {
  LayerMask layers = 0;
  std::vector<std::string> tags;
};

Scope scope_of(const SearchRequest& request) {
  const std::string& cell = request.filter.cell;
  const bool shared = (request.layers & kSharedLayers) != 0;
  const bool own = (request.layers & kPersonalLayers) != 0;
  if (!request.filter.actor) {
    if (!own) return {kSharedLayers, {shared_scope_tag(cell)}};
    return {kAllLayers, {cell_tag(cell)}};
  }
  Scope scope;
  if (shared) {
    scope.layers |= kSharedLayers;
    scope.tags.push_back(shared_scope_tag(cell));
  }
  if (own) {
    scope.layers |= kPersonalLayers;
    scope.tags.push_back(actor_scope_tag(cell, *request.filter.actor));
  }
  return scope;
}

// What one term's walk saw: every match in the scope it read, and the ones the
// caller's filters and layers admit.
struct TermScan {
  int64_t seen = 0;
  int64_t oldest_seq = 0;
  std::vector<Match> visible;
  bool cut_short = false;  // ended before the scope's window filled, by its own limit or
                           // because the word proved common (see walk)
};

// The shared walk looks up every match it reads (about 0.6 µs each on the 1M-entry
// benchmark store); the tagged walk's cost per match falls as the word gets commoner
// (10 µs at 0.15% of entries, under 0.5 µs at 5% and more), since FTS5 then steps
// through the two doclists side by side instead of seeking in the tag's. The shared
// walk gives up for the tagged one once its first kDensityProbe matches show a word in
// at least one entry of kCommonWordSpan: the figure that measured best for common
// words without costing mid-frequency ones (measured with bench/memory/run.sh).
constexpr int64_t kDensityProbe = 256;
constexpr int64_t kCommonWordSpan = 30;

// BM25 over what the caller may see in the cell: its entries and their average length
// are those of the entries the search may return, and each term's window is the newest
// matches in the caller's scope, however the walk finds them.
class Ranker {
 public:
  Ranker(Connection& c, const SearchRequest& request, int candidates)
      : c_(c), request_(request), scope_(scope_of(request)), candidates_(candidates) {
    corpus_ = corpus_of(c_, request_.filter, request_.layers);
    if (corpus_.entries == 0) return;
    average_tokens_ = static_cast<double>(corpus_.tokens) / static_cast<double>(corpus_.entries);
  }

  // Scores `terms`, by reading the filtered entries whole when they are at most
  // `read_whole_max`, else by walking each term's window.
  void add_terms(const std::vector<std::string>& terms, int64_t read_whole_max,
                 double shared_walk_min_share) {
    if (corpus_.entries == 0) return;
    if (corpus_.entries <= read_whole_max) return read_whole(terms);
    shared_walk_limit_ = shared_walk_limit(shared_walk_min_share);
    for (const std::string& term : terms) add_term(term);
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
  void add_term(const std::string& term) {
    TermScan scan = walk(term);
    if (scan.visible.empty()) return;
    auto df = static_cast<int64_t>(scan.visible.size());
    if (scan.seen == candidates_) df = extrapolated_df(scan);
    add_scores(scan.visible, df);
  }

  // One term's part of each score: its IDF over the caller's entries, `df` of which
  // hold it, times each match's weight.
  void add_scores(const std::vector<Match>& matches, int64_t df) {
    double idf = bm25::idf(corpus_.entries, df);
    for (const Match& m : matches)
      scores_[m.seq] += idf * bm25::term_weight(m.tf, m.tokens, average_tokens_);
  }

  // Every entry the filters admit, its content tokenized once. The sums run term by
  // term, as add_term's do, so both give the same scores to the last bit.
  void read_whole(const std::vector<std::string>& terms) {
    std::vector<std::vector<Match>> by_term(terms.size());
    std::vector<int64_t> counts;
    for (int layer = 0; layer < kLayerCount; ++layer) {
      if (((request_.layers >> layer) & 1) == 0) continue;
      FilterShape shape = FilterShape::of(request_.filter, layer);
      Statement& s = c_.prepared(scan_sql(shape));
      StatementUse use(s);
      bind_layer_filter(s, request_.filter, layer, shape);
      while (use->step()) {
        c_.tokenizer().count_terms(s.column_blob(1), terms, counts);
        for (size_t t = 0; t < terms.size(); ++t)
          if (counts[t] > 0) by_term[t].push_back({s.column_int(0), counts[t], s.column_int(2)});
      }
    }
    for (const std::vector<Match>& matches : by_term)
      if (!matches.empty()) add_scores(matches, static_cast<int64_t>(matches.size()));
  }

  // Both walks see the same matches: the scope's newest `candidates_`, or all of them.
  TermScan walk(const std::string& term) {
    if (shared_walk_limit_ > 0) {
      TermScan scan = walk(term_match(term), shared_walk_limit_, true);
      if (!scan.cut_short) return scan;
    }
    return walk(tags_term_match(scope_.tags, term), candidates_, false);
  }

  TermScan walk(const std::string& match, int64_t limit, bool shared) {
    Statement& s = c_.prepared(search_term_sql());
    StatementUse use(s);
    s.bind(":match", match);
    s.bind(":candidates", limit);
    s.bind(":layers", static_cast<int64_t>(request_.layers));
    s.bind(":scope_layers", static_cast<int64_t>(scope_.layers));
    bind_visibility(s, request_.filter);
    TermScan scan;
    int64_t read = 0, newest = 0;
    while (scan.seen < candidates_ && use->step()) {
      if (++read == 1) newest = s.column_int(0);
      if (shared && read == kDensityProbe &&
          newest - s.column_int(0) < kDensityProbe * kCommonWordSpan) {
        scan.cut_short = true;
        return scan;
      }
      if (s.column_int(3) == 0) continue;  // another cell's, or another actor's
      ++scan.seen;
      scan.oldest_seq = s.column_int(0);
      if (s.column_int(4) != 0)
        scan.visible.push_back({s.column_int(0), s.column_int(1), s.column_int(2)});
    }
    scan.cut_short = scan.seen < candidates_ && read == limit;
    return scan;
  }

  // 0 when the scope is too small a share of the store for the shared walk; else twice
  // the matches it should read to fill the window, so an uneven spread rarely makes it
  // fall back to the tagged walk.
  int64_t shared_walk_limit(double min_share) {
    Filter scope;
    scope.cell = request_.filter.cell;
    scope.actor = request_.filter.actor;
    const int64_t scope_entries = corpus_of(c_, scope, scope_.layers).entries;
    Statement& s = c_.prepared(index_rows_sql());
    StatementUse use(s);
    s.bind(":match", cell_match(request_.filter.cell));
    if (!use->step()) return 0;
    double share = static_cast<double>(scope_entries) / static_cast<double>(s.column_int(0));
    if (share < min_share) return 0;
    return static_cast<int64_t>(2.0 * candidates_ / std::min(share, 1.0)) + 1;
  }

  int64_t extrapolated_df(const TermScan& scan) {
    if (!seq_range_) seq_range_ = scope_seq_range();
    // The caller's matches in the window, scaled to the scope's whole seq range.
    return bm25::estimate_df(static_cast<int64_t>(scan.visible.size()), scan.oldest_seq,
                             seq_range_->first, seq_range_->second, corpus_.entries);
  }

  // The smallest and largest seq in the scope: edges of its layers' ranges.
  std::pair<int64_t, int64_t> scope_seq_range() {
    Statement& s = c_.prepared(layer_seq_ranges_sql(request_.filter.actor.has_value()));
    StatementUse use(s);
    s.bind(":cell", request_.filter.cell);
    if (request_.filter.actor) s.bind(":actor", *request_.filter.actor);
    std::pair<int64_t, int64_t> range{std::numeric_limits<int64_t>::max(), 0};
    while (use->step()) {
      // A layer outside the scope, or without entries (a seq is never 0).
      if (((scope_.layers >> s.column_int(0)) & 1) == 0 || s.column_int(1) == 0) continue;
      range.first = std::min(range.first, s.column_int(1));
      range.second = std::max(range.second, s.column_int(2));
    }
    return range;
  }

  Connection& c_;
  const SearchRequest& request_;
  const Scope scope_;
  const int candidates_;
  Corpus corpus_;
  double average_tokens_ = 0;
  int64_t shared_walk_limit_ = 0;
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
                                      int search_candidates, const SearchPlan& plan) {
  std::vector<std::string> terms = c.tokenizer().distinct_terms(request.query, kMaxQueryTerms);
  if (terms.empty())
    throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "query has no searchable words");
  std::vector<SearchHit> hits;
  if (request.layers == 0) return hits;

  ReadSnapshot snapshot(c);
  Ranker ranker(c, request, candidates_per_term(search_candidates, terms.size()));
  ranker.add_terms(
      terms, plan.read_whole_max >= 0 ? plan.read_whole_max : search_candidates / kReadWholeDivisor,
      plan.shared_walk_min_share);
  size_t bytes = 0;
  for (const auto& [seq, score] : ranker.best(static_cast<size_t>(request.limit))) {
    EntryRow row = row_by_seq(c, seq);
    bytes += entry_bytes(row);
    if (!hits.empty() && bytes > kAnswerBytes) break;  // the best that fit
    hits.push_back({std::move(row), score});
  }
  return hits;
}

}  // namespace agentrt::memory_sqlite
