#include "connection.h"

#include "schema.h"

namespace agentrt::memory_sqlite {
namespace {

// Index pages are what counts and lists walk: memory-mapping the file lets every
// connection read them straight from the OS page cache, shared, instead of each
// copying pages into its own cache through read(2).
constexpr const char* kReadPragmas =
    "PRAGMA mmap_size=1073741824; PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY;";

// The writer touches the leaf pages of five b-trees and the FTS index per save; a
// larger cache keeps their upper levels resident while loading. journal_size_limit
// trims the WAL file back after a checkpoint that a reader's snapshot let grow past it.
constexpr const char* kWritePragmas =
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;"
    "PRAGMA mmap_size=1073741824; PRAGMA journal_size_limit=67108864;";

Database& configured(Database& db, const char* pragmas) {
  db.exec(pragmas);
  return db;
}

}  // namespace

Connection::Connection(const std::string& path, OpenMode mode)
    : db_(path, mode),
      tokenizer_(configured(db_, mode == OpenMode::kReadWrite ? kWritePragmas : kReadPragmas)) {}

Statement& Connection::prepared(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end())
    it = statements_.emplace(sql, std::make_unique<Statement>(db_, sql)).first;
  return *it->second;
}

ReadSnapshot::ReadSnapshot(Connection& c) : c_(c) {
  StatementUse(c_.prepared("BEGIN"))->step();
}

ReadSnapshot::~ReadSnapshot() {
  // A read transaction has nothing to keep, so ending it can only fail if SQLite
  // already ended it; either way the connection is back in autocommit.
  if (sqlite3_get_autocommit(c_.db().handle()) == 0) {
    StatementUse end(c_.prepared("COMMIT"));
    if (sqlite3_step(end->handle()) != SQLITE_DONE)
      sqlite3_exec(c_.db().handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

std::unique_ptr<Connection> open_writer(const std::string& path, int checkpoint_pages) {
  auto c = std::make_unique<Connection>(path, OpenMode::kReadWrite);
  c->db().exec(("PRAGMA wal_autocheckpoint=" + std::to_string(checkpoint_pages)).c_str());
  migrate(c->db());
  return c;
}

std::unique_ptr<Connection> open_reader(const std::string& path) {
  auto c = std::make_unique<Connection>(path, OpenMode::kReadOnly);
  register_term_stat_function(c->db());
  return c;
}

}  // namespace agentrt::memory_sqlite
