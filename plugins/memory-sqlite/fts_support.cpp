#include "fts_support.h"

#include <agentrt/plugin.hpp>

#include <climits>
#include <unordered_set>

namespace agentrt::memory_sqlite {
namespace {

fts5_api* fts5_api_of(Database& db) {
  fts5_api* api = nullptr;
  Statement s(db, "SELECT fts5(?1)");
  StatementUse use(s);
  if (sqlite3_bind_pointer(s.handle(), 1, &api, "fts5_api_ptr", nullptr) != SQLITE_OK)
    db.fail("cannot bind the fts5 api pointer");
  use->step();
  if (api == nullptr || api->iVersion < 2)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: SQLite has no usable FTS5");
  return api;
}

// Instances of the query's last phrase in the row: the term's frequency, since a search
// puts its term last, after the cell's tag when it has one.
int last_phrase_frequency(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_int64* out) {
  int instances = 0;
  int rc = api->xInstCount(fts, &instances);
  int last = api->xPhraseCount(fts) - 1;
  *out = 0;
  for (int i = 0; rc == SQLITE_OK && i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (phrase == last) ++*out;
  }
  return rc;
}

void term_stat(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int argc,
               sqlite3_value** argv) {
  if (argc != 1) {
    sqlite3_result_error(ctx, "agentrt_term_stat(fts, what) takes one argument", -1);
    return;
  }
  int rc = SQLITE_OK;
  sqlite3_int64 value = 0;
  switch (sqlite3_value_int(argv[0])) {
    case 0:
      rc = last_phrase_frequency(api, fts, &value);
      break;
    case 1:
      rc = api->xRowCount(fts, &value);
      break;
    default:
      sqlite3_result_error(ctx, "agentrt_term_stat: what must be 0 or 1", -1);
      return;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_int64(ctx, value);
}

struct TermCollector {
  size_t max_terms;
  std::vector<std::string>* terms;
  std::unordered_set<std::string> seen;
};

int collect_term(void* user, int, const char* token, int len, int, int) {
  auto* c = static_cast<TermCollector*>(user);
  std::string term(token, static_cast<size_t>(len));
  if (c->seen.insert(term).second) c->terms->push_back(std::move(term));
  // SQLITE_DONE stops the tokenizer early without reporting an error.
  return c->terms->size() >= c->max_terms ? SQLITE_DONE : SQLITE_OK;
}

int count_token(void* user, int, const char*, int, int, int) {
  ++*static_cast<int64_t*>(user);
  return SQLITE_OK;
}

struct TermCounter {
  const std::vector<std::string>* terms;
  std::vector<int64_t>* counts;
};

int count_term(void* user, int, const char* token, int len, int, int) {
  auto* c = static_cast<TermCounter*>(user);
  std::string_view word(token, static_cast<size_t>(len));
  for (size_t i = 0; i < c->terms->size(); ++i)
    if ((*c->terms)[i] == word) ++(*c->counts)[i];
  return SQLITE_OK;
}

}  // namespace

struct Tokenizer::Impl {
  fts5_tokenizer methods{};
  Fts5Tokenizer* instance = nullptr;
};

namespace {

// FTS5 passes lengths as int; longer text cannot be tokenized in one call.
int text_length(std::string_view text) {
  if (text.size() > static_cast<size_t>(INT_MAX))
    throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "memory-sqlite: text longer than 2 GiB");
  return static_cast<int>(text.size());
}

}  // namespace

Tokenizer::Tokenizer(Database& db) : impl_(std::make_unique<Impl>()) {
  fts5_api* api = fts5_api_of(db);
  void* context = nullptr;
  // Must match the tokenize clause of memory_fts in schema.cpp.
  const char* args[] = {"remove_diacritics", "2"};
  if (api->xFindTokenizer(api, "unicode61", &context, &impl_->methods) != SQLITE_OK ||
      impl_->methods.xCreate(context, args, 2, &impl_->instance) != SQLITE_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: cannot create the unicode61 tokenizer");
}

Tokenizer::~Tokenizer() {
  if (impl_->instance) impl_->methods.xDelete(impl_->instance);
}

std::vector<std::string> Tokenizer::distinct_terms(std::string_view text, size_t max_terms) {
  std::vector<std::string> terms;
  if (max_terms == 0) return terms;
  TermCollector collector{max_terms, &terms, {}};
  int rc = impl_->methods.xTokenize(impl_->instance, &collector, FTS5_TOKENIZE_QUERY, text.data(),
                                    text_length(text), collect_term);
  if (rc != SQLITE_OK && rc != SQLITE_DONE)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: cannot tokenize the query");
  return terms;
}

int64_t Tokenizer::count_tokens(std::string_view text) {
  int64_t count = 0;
  int rc = impl_->methods.xTokenize(impl_->instance, &count, FTS5_TOKENIZE_DOCUMENT, text.data(),
                                    text_length(text), count_token);
  if (rc != SQLITE_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: cannot tokenize the content");
  return count;
}

void Tokenizer::count_terms(std::string_view text, const std::vector<std::string>& terms,
                            std::vector<int64_t>& counts) {
  counts.assign(terms.size(), 0);
  TermCounter counter{&terms, &counts};
  int rc = impl_->methods.xTokenize(impl_->instance, &counter, FTS5_TOKENIZE_DOCUMENT, text.data(),
                                    text_length(text), count_term);
  if (rc != SQLITE_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: cannot tokenize the content");
}

void register_term_stat_function(Database& db) {
  fts5_api* api = fts5_api_of(db);
  if (api->xCreateFunction(api, "agentrt_term_stat", nullptr, term_stat, nullptr) != SQLITE_OK)
    db.fail("cannot register agentrt_term_stat");
}

std::string fts_literal(std::string_view term) {
  std::string out = "\"";
  for (char c : term) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

namespace {

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
}

std::string tag_of(char kind, std::string_view cell) {
  std::string tag(1, kind);
  tag.reserve(1 + 2 * cell.size());
  append_hex(tag, cell);
  return tag;
}

}  // namespace

std::string cell_tag(std::string_view cell) {
  return tag_of('c', cell);
}

std::string shared_scope_tag(std::string_view cell) {
  return tag_of('s', cell);
}

std::string actor_scope_tag(std::string_view cell, std::string_view actor) {
  std::string tag = tag_of('o', cell);
  tag.push_back('g');
  append_hex(tag, actor);
  return tag;
}

std::string cell_match(std::string_view cell) {
  return "cell_tag : " + fts_literal(cell_tag(cell));
}

std::string tags_match(const std::vector<std::string>& tags) {
  if (tags.size() == 1) return "cell_tag : " + fts_literal(tags[0]);
  std::string match = "cell_tag : (";
  for (size_t i = 0; i < tags.size(); ++i) match += (i ? " OR " : "") + fts_literal(tags[i]);
  return match + ")";
}

std::string term_match(std::string_view term) {
  return "content : " + fts_literal(term);
}

std::string tags_term_match(const std::vector<std::string>& tags, std::string_view term) {
  return tags_match(tags) + " AND " + term_match(term);
}

}  // namespace agentrt::memory_sqlite
