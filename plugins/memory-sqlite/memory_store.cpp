#include "memory_store.h"

#include "filter_sql.h"
#include "ids_and_time.h"
#include "schema.h"
#include "sqlite-common/store_probe.h"

#include <agentrt/plugin.hpp>

#include <limits>

namespace agentrt::memory_sqlite {
namespace {

// Two cores serve this process; more readers than that only queue inside SQLite, but a
// few spare ones keep a slow search from holding up counts.
constexpr size_t kMaxReaders = 8;

// 96-bit random ids collide practically never; a few redraws rule out an endless loop.
constexpr int kIdAttempts = 4;

const std::string& insert_sql() {
  static const std::string sql =
      "INSERT INTO memory_entries(id, cell, layer, requested_layer, actor, namespace, session_id,"
      " content, metadata, token_count, created_at, updated_at)"
      " VALUES(:id, :cell, :layer, :requested, :actor, :ns, :sid, :content, :metadata, :tokens,"
      " :now, :now) ON CONFLICT(id) DO NOTHING";
  return sql;
}

const std::string& get_sql() {
  static const std::string sql = std::string("SELECT ") + kEntryColumns +
                                 " FROM memory_entries AS e WHERE e.id = :id AND " + kVisibleSql;
  return sql;
}

const std::string& remove_sql() {
  static const std::string sql =
      std::string("DELETE FROM memory_entries AS e WHERE e.id = :id AND ") + kVisibleSql;
  return sql;
}

// The session layer's entries of that session, whoever wrote them. An entry of another
// layer that names the session (where a fact was learnt) outlives it: it may be
// another actor's, or the cell's shared knowledge.
const std::string& delete_session_sql() {
  static const std::string sql =
      std::string("DELETE FROM memory_entries INDEXED BY ") + kIndexBySession +
      " WHERE cell = :cell AND layer = " + std::to_string(kSessionLayer) + " AND session_id = :sid";
  return sql;
}

EntryRow row_of(const SaveRequest& r) {
  EntryRow row;
  row.layer = r.layer;
  row.requested_layer = r.requested_layer;
  row.actor = r.actor;
  row.ns = r.ns;
  row.session_id = r.session_id;
  row.content = r.content;
  row.metadata_json = r.metadata_json;
  return row;
}

}  // namespace

MemoryStore::MemoryStore(const Config& config)
    : config_(config),
      path_(prepare_private_file(config.data_dir)),
      writer_(open_writer(path_, config.checkpoint_pages)),
      readers_(path_, kMaxReaders) {}

EntryRow MemoryStore::save(const SaveRequest& r) {
  EntryRow row = row_of(r);
  std::lock_guard<std::mutex> lock(write_mutex_);
  int64_t tokens = writer_->tokenizer().count_tokens(r.content);
  Statement& s = writer_->prepared(insert_sql());
  for (int attempt = 0; attempt < kIdAttempts; ++attempt) {
    row.id = new_entry_id();
    row.created_at = row.updated_at = now_unix_ms();
    StatementUse use(s);
    s.bind(":id", row.id);
    s.bind(":cell", r.cell);
    s.bind(":layer", int64_t{r.layer});
    s.bind(":requested", r.requested_layer);
    s.bind(":actor", r.actor);
    s.bind(":ns", r.ns);
    s.bind(":sid", r.session_id);
    s.bind(":content", r.content);
    s.bind(":metadata", r.metadata_json);
    s.bind(":tokens", tokens);
    s.bind(":now", row.created_at);
    use->step();
    if (writer_->db().changes() == 1) {
      row.seq = sqlite3_last_insert_rowid(writer_->db().handle());
      return row;
    }
  }
  throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: could not draw an unused entry id");
}

std::optional<EntryRow> MemoryStore::get(const IdRequest& r) {
  if (!is_entry_id(r.id)) return std::nullopt;
  auto c = readers_.acquire();
  Statement& s = c->prepared(get_sql());
  StatementUse use(s);
  s.bind(":id", r.id);
  bind_visibility(s, r.filter);
  if (!use->step()) return std::nullopt;
  return read_entry_row(s);
}

ListPage MemoryStore::list(const ListRequest& r) {
  auto c = readers_.acquire();
  FilterShape shape = FilterShape::of(r.filter, r.layer);
  Statement& s = c->prepared(list_sql(shape));
  StatementUse use(s);
  bind_layer_filter(s, r.filter, r.layer, shape);
  s.bind(":before", r.before_seq.value_or(std::numeric_limits<int64_t>::max()));
  s.bind(":max_tokens", r.max_tokens);
  // One row beyond the page says whether another page exists.
  s.bind(":limit", int64_t{r.limit} + 1);
  ListPage page;
  size_t bytes = 0;
  while (use->step()) {
    EntryRow row = read_entry_row(s);
    bytes += entry_bytes(row);
    if (page.rows.size() == static_cast<size_t>(r.limit) ||
        (!page.rows.empty() && bytes > kAnswerBytes)) {
      page.has_more = true;
      break;
    }
    page.rows.push_back(std::move(row));
  }
  return page;
}

bool MemoryStore::remove(const IdRequest& r) {
  if (!is_entry_id(r.id)) return false;
  std::lock_guard<std::mutex> lock(write_mutex_);
  Statement& s = writer_->prepared(remove_sql());
  StatementUse use(s);
  s.bind(":id", r.id);
  bind_visibility(s, r.filter);
  use->step();
  return writer_->db().changes() == 1;
}

int64_t MemoryStore::clear_layer(const LayerRequest& r) {
  Filter filter = r.filter;
  FilterShape shape = FilterShape::of(filter, r.layer);
  // An owner narrows even a shared layer, where the reader's actor does not.
  if (r.owner) {
    filter.actor = r.owner;
    shape.actor = true;
  }
  std::lock_guard<std::mutex> lock(write_mutex_);
  Statement& s = writer_->prepared(clear_sql(shape));
  StatementUse use(s);
  bind_layer_filter(s, filter, r.layer, shape);
  use->step();
  return writer_->db().changes();
}

LayerCounts MemoryStore::count(const Filter& filter) {
  auto c = readers_.acquire();
  LayerCounts counts{};
  // One snapshot for all seven, so the counts add up to a state that existed.
  ReadSnapshot snapshot(*c);
  for (int layer = 0; layer < kLayerCount; ++layer) {
    FilterShape shape = FilterShape::of(filter, layer);
    Statement& s = c->prepared(count_sql(shape));
    StatementUse use(s);
    bind_layer_filter(s, filter, layer, shape);
    // No tally row means no entry: the triggers delete a tally that reaches zero.
    counts[static_cast<size_t>(layer)] = use->step() ? s.column_int(0) : 0;
  }
  return counts;
}

std::vector<SearchHit> MemoryStore::search(const SearchRequest& r) {
  auto c = readers_.acquire();
  return search_entries(*c, r, config_.search_candidates);
}

int64_t MemoryStore::delete_by_session(const SessionRequest& r) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  Statement& s = writer_->prepared(delete_session_sql());
  StatementUse use(s);
  s.bind(":cell", r.cell);
  s.bind(":sid", r.session_id);
  use->step();
  return writer_->db().changes();
}

void MemoryStore::probe() {
  std::lock_guard<std::mutex> lock(write_mutex_);
  plugin_sqlite::probe_write(writer_->db());
}

}  // namespace agentrt::memory_sqlite
