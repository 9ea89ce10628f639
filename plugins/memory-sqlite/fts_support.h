// What search needs from SQLite's FTS5 beyond MATCH: the very tokenizer the index uses
// (so a query is split into exactly the terms the index holds, and user text never
// reaches the FTS5 query parser as syntax), and a cheap per-row statistic function.
#pragma once

#include "sqlite_db.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::memory_sqlite {

// One instance of the unicode61 tokenizer configured as memory_fts is (remove_diacritics
// 2). Not thread-safe: each connection owns one and uses it under its own exclusivity.
class Tokenizer {
 public:
  explicit Tokenizer(Database& db);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The distinct terms of `text`, folded as the index folds them, in first-seen order,
  // at most `max_terms` of them.
  std::vector<std::string> distinct_terms(std::string_view text, size_t max_terms);

  // How many tokens the index records for `text` (BM25's document length).
  int64_t count_tokens(std::string_view text);

  // How often each of `terms` (as distinct_terms gives them) occurs in `text` as the
  // index would count it: counts[i] for terms[i].
  void count_terms(std::string_view text, const std::vector<std::string>& terms,
                   std::vector<int64_t>& counts);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Registers the FTS5 auxiliary function agentrt_term_stat(memory_fts, what) on `db`:
// what 0 = occurrences of the query's last phrase in the row (the term's frequency,
// since a search puts its term last), 1 = rows in the whole index. Each is O(1) per
// match, unlike bm25(), whose IDF step walks every row that matches each term.
void register_term_stat_function(Database& db);

// A MATCH expression that is one literal term: FTS5 syntax never leaks through it.
std::string fts_literal(std::string_view term);

// The words memory_fts's cell_tag column holds (schema step 6), spelled as SQLite's
// hex() spells the names: 'c' and the cell's hex for every entry of the cell; 's' and
// the cell's hex for an entry of a shared layer; 'o', the cell's hex, 'g' and the
// actor's hex for an entry of one actor's. FTS5 keeps a word's first 32 KB only, so
// names past about 16 KB can share a word: the words choose a walk's matches, and
// search still checks each match's cell and actor exactly (filter_sql.h, kScopeSql).
std::string cell_tag(std::string_view cell);
std::string shared_scope_tag(std::string_view cell);
std::string actor_scope_tag(std::string_view cell, std::string_view actor);

// The entries that hold any of `tags` (words of the cell_tag column, at least one).
std::string tags_match(const std::vector<std::string>& tags);

// The same entries whose content holds `term`: the tags first, the term last.
std::string tags_term_match(const std::vector<std::string>& tags, std::string_view term);

// Every entry whose content holds `term`, in any cell.
std::string term_match(std::string_view term);

// Every entry of `cell`.
std::string cell_match(std::string_view cell);

}  // namespace agentrt::memory_sqlite
