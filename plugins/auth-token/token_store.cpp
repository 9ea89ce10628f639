#include "token_store.h"

#include "sqlite-common/migrations.h"
#include "sqlite-common/store_probe.h"
#include "time_format.h"

#include <agentrt/plugin.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace agentrt::auth_token {
namespace {

// Step N brings user_version from N-1 to N. A released step never changes: stores in
// the field have already run it; new columns go in a new step at the end.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE tokens(
  id TEXT PRIMARY KEY NOT NULL,
  secret_hash BLOB NOT NULL CHECK(length(secret_hash) = 32),
  actor TEXT NOT NULL,
  cell TEXT,
  admin INTEGER NOT NULL CHECK(admin IN (0, 1)),
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER
) WITHOUT ROWID;
CREATE INDEX tokens_live_by_age ON tokens(created_at DESC, id DESC) WHERE revoked_at IS NULL;
)sql",
    // Newest first means in the order of issue: created_at has whole seconds, and ids
    // are random, so tokens of one second listed in no order.
    R"sql(
ALTER TABLE tokens ADD COLUMN issued INTEGER;
UPDATE tokens SET issued = numbered.n
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM tokens) AS numbered
  WHERE numbered.id = tokens.id;
CREATE UNIQUE INDEX tokens_by_issue ON tokens(issued);
DROP INDEX tokens_live_by_age;
CREATE INDEX tokens_live_newest_first ON tokens(issued DESC) WHERE revoked_at IS NULL;
)sql",
    // Dead tokens are found by these and removed a while after they died (prune).
    R"sql(
CREATE INDEX tokens_by_expiry ON tokens(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX tokens_by_revocation ON tokens(revoked_at) WHERE revoked_at IS NOT NULL;
)sql",
};
constexpr int64_t kSchemaVersion = sizeof kMigrations / sizeof kMigrations[0];

// SQLite gives its -wal and -shm files the main file's mode, so creating the main
// file 0600 before SQLite touches it keeps all three private whatever the umask.
// A guest finds the store or fails: one it made would hold none of the tokens the
// serving agentd checks.
std::string create_private_file(const StoreConfig& config) {
  std::string path = config.data_dir + "/auth.db";
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (config.guest ? 0 : O_CREAT), 0600);
  if (fd < 0 && config.guest && errno == ENOENT)
    throw sdk::Error(AGENTRT_ERR_UNAVAILABLE, "auth-token: there is no '" + path + "'");
  if (fd < 0)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     "auth-token: cannot open '" + path + "': " + std::strerror(errno));
  // An existing file may predate this rule or have been copied in with a wider mode.
  int rc = ::fchmod(fd, 0600);
  int saved = errno;
  ::close(fd);
  if (rc != 0)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     "auth-token: cannot chmod '" + path + "': " + std::strerror(saved));
  return path;
}

// For the constructor's initialiser list: statements can only be prepared once the
// tables they name exist. WAL so that readers and the writer, in this process or
// another on the same data dir, do not block each other.
Database& migrated(Database& db, bool guest) {
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  plugin_sqlite::migrate_to(db, kMigrations, kSchemaVersion, kSchemaVersion, "auth-token: auth.db",
                            /*may_upgrade=*/!guest);
  return db;
}

constexpr const char* kColumns =
    "id, actor, cell, admin, created_at, expires_at, revoked_at, issued";

TokenRecord read_record(Statement& s) {
  TokenRecord r;
  r.id = s.column_text(0);
  r.actor = s.column_text(1);
  r.cell = s.column_optional_text(2);
  r.admin = s.column_int(3) != 0;
  r.created_at = s.column_int(4);
  r.expires_at = column_optional_int(s, 5);
  r.revoked_at = column_optional_int(s, 6);
  r.issued = s.column_int(7);
  return r;
}

constexpr auto kCacheFor = std::chrono::seconds(1);
// A dead token's row is kept this long, so that a client still presenting it is told
// why (expired, revoked) rather than that it is unknown; then it goes.
constexpr int64_t kKeepDeadS = 7 * 24 * 3600;
// Rows removed per issue: a bounded cost, where dead rows come at most as fast as
// tokens are issued. A start removes every one that is due.
constexpr int64_t kPruneBatch = 64;

// The newest row stays whatever its state: the next token's place in the order of
// issue is one past it, and a listing's cursor may name it.
std::string prune_sql(const char* dead_since) {
  return std::string("DELETE FROM tokens WHERE id IN (SELECT id FROM tokens WHERE ") + dead_since +
         " <= ?1 AND issued < (SELECT max(issued) FROM tokens) LIMIT ?2)";
}

std::string dead_due_sql() {
  const char* newest = " AND issued < (SELECT max(issued) FROM tokens))";
  return std::string("SELECT EXISTS(SELECT 1 FROM tokens WHERE expires_at <= ?1") + newest +
         " OR EXISTS(SELECT 1 FROM tokens WHERE revoked_at <= ?1" + newest;
}
constexpr size_t kMaxCached = 100000;

}  // namespace

// SQLite's own mutex costs nothing noticeable here and keeps it safe even if a caller
// forgets mutex_.
TokenStore::TokenStore(const StoreConfig& config)
    : db_(create_private_file(config), plugin_sqlite::OpenMode::kReadWrite, "auth-token",
          plugin_sqlite::ConnectionMutex::kFull),
      insert_(migrated(db_, config.guest),
              "INSERT INTO tokens(id, secret_hash, actor, cell, admin, created_at, expires_at, "
              "issued) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, "
              "(SELECT coalesce(max(issued), 0) + 1 FROM tokens)) ON CONFLICT(id) DO NOTHING"),
      find_(db_, std::string("SELECT ") + kColumns + ", secret_hash FROM tokens WHERE id = ?1"),
      list_(db_, std::string("SELECT ") + kColumns +
                     " FROM tokens WHERE revoked_at IS NULL"
                     " AND (expires_at IS NULL OR expires_at > ?4)"
                     " AND (?1 IS NULL OR admin = ?1)"
                     " AND (?2 IS NULL OR issued < ?2)"
                     " ORDER BY issued DESC LIMIT ?3"),
      revoke_(db_, "UPDATE tokens SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL"),
      prune_expired_(db_, prune_sql("expires_at")),
      prune_revoked_(db_, prune_sql("revoked_at")),
      dead_due_(db_, dead_due_sql()),
      guest_(config.guest) {
  if (guest_) return;
  // Asked first, read-only: a start that has nothing to remove writes nothing, so it
  // neither waits for nor takes the write lock (`agentd admin-token` may hold it).
  const int64_t now = now_unix_seconds();
  {
    StatementUse due(dead_due_);
    due->bind(1, now - kKeepDeadS);
    if (!due->step() || due->column_int(0) == 0) return;
  }
  try {
    prune(now, -1);
  } catch (const sdk::Error&) {
    // Busy with another writer: the next issue removes them.
  }
}

void TokenStore::prune(int64_t now, int64_t limit) {
  for (Statement* statement : {&prune_expired_, &prune_revoked_}) {
    StatementUse s(*statement);
    s->bind(1, now - kKeepDeadS);
    s->bind(2, limit);
    s->step();
  }
}

bool TokenStore::insert(const TokenRecord& r, const Sha256Digest& secret_hash) {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    if (!guest_) prune(r.created_at, kPruneBatch);
  } catch (const sdk::Error&) {
    // Housekeeping: the token is issued all the same, and a later issue removes them.
  }
  StatementUse s(insert_);
  s->bind(1, std::string_view(r.id));
  bind_digest(*s, 2, secret_hash);
  s->bind(3, std::string_view(r.actor));
  s->bind(4, r.cell);
  s->bind(5, int64_t{r.admin ? 1 : 0});
  s->bind(6, r.created_at);
  bind_optional_int(*s, 7, r.expires_at);
  s->step();
  return db_.changes() == 1;
}

std::optional<StoredToken> TokenStore::find(const std::string& id) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  auto cached = cache_.find(id);
  if (cached != cache_.end() && now - cached->second.read_at < kCacheFor)
    return cached->second.token;
  StatementUse s(find_);
  s->bind(1, std::string_view(id));
  if (!s->step()) return std::nullopt;
  StoredToken t;
  t.record = read_record(*s);
  t.secret_hash = column_digest(*s, 8);
  // Unknown ids are never kept, so guessing cannot grow this; live tokens can, hence
  // the bound.
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_[id] = Cached{t, now};
  return t;
}

ListPage TokenStore::list(const ListQuery& q) {
  std::lock_guard<std::mutex> lock(mutex_);
  StatementUse s(list_);
  if (q.admin) s->bind(1, int64_t{*q.admin ? 1 : 0});
  if (q.after) s->bind(2, q.after->issued);
  s->bind(4, q.now);
  // One row beyond the page says whether another page exists.
  s->bind(3, int64_t{q.limit} + 1);
  ListPage page;
  while (s->step()) page.records.push_back(read_record(*s));
  if (page.records.size() > static_cast<size_t>(q.limit)) {
    page.records.pop_back();
    page.has_more = true;
  }
  return page;
}

bool TokenStore::revoke(const std::string& id, int64_t now) {
  std::lock_guard<std::mutex> lock(mutex_);
  StatementUse s(revoke_);
  s->bind(1, std::string_view(id));
  s->bind(2, now);
  s->step();
  cache_.erase(id);
  return db_.changes() == 1;
}

void TokenStore::probe() {
  std::lock_guard<std::mutex> lock(mutex_);
  plugin_sqlite::probe_write(db_);
}

}  // namespace agentrt::auth_token
