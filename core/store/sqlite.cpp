#include "core/store/sqlite.h"

#include <string>

namespace agentrt::core {
namespace {

std::string db_name(sqlite3* db) {
  const char* name = db == nullptr ? nullptr : sqlite3_db_filename(db, "main");
  return name == nullptr || *name == '\0' ? std::string("(temporary database)") : name;
}

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw StoreError("sqlite: " + what + ": " + sqlite3_errmsg(db) + " (" + db_name(db) + ")",
                   db == nullptr ? 0 : sqlite3_extended_errcode(db));
}

}  // namespace

Connection::Connection(const std::string& path, bool read_only) {
  // Before SQLite's first use in the process (the state store opens first).
  static const bool configured = [] {
    // Without memory statistics every allocation skips a global mutex.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    // A group commit runs each writer in a savepoint, whose sub-journal keeps a copy of
    // every page the writer changes. Past its bound it goes to a new temporary file in
    // /var/tmp, created, written page by page and deleted per commit: at 64 concurrent
    // /chat with 4 KB pages and SQLite's default of 64 KiB that was 10 writes a /chat
    // and 9% of agentd's CPU. The bound keeps a statement that rewrites much of the
    // database (a cell's delete) from holding all of it in memory.
    sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, kStatementJournalInMemory);
    return true;
  }();
  (void)configured;
  // NOMUTEX: a connection is used by one thread at a time (the store hands them out),
  // so SQLite's per-connection lock would be pure overhead.
  int flags = SQLITE_OPEN_NOMUTEX |
              (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError("sqlite: cannot open '" + path + "': " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  try {
    sqlite3_busy_timeout(db_, 5000);
    // journal_mode is a property of the database file; a read-only connection cannot
    // change it and inherits WAL from the writer that set it. The page size first:
    // switching to WAL writes the new file's first page, and with it its size.
    if (!read_only) {
      exec(("PRAGMA page_size=" + std::to_string(kNewPageSize)).c_str());
      exec("PRAGMA journal_mode=WAL");
    }
    exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    if (read_only) exec("PRAGMA mmap_size=268435456");
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Connection::~Connection() {
  for (auto& [sql, idle] : idle_)
    for (sqlite3_stmt* stmt : idle->statements) sqlite3_finalize(stmt);
  // close_v2 defers the close until outstanding statements are finalized instead of
  // failing with SQLITE_BUSY and leaking the handle.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void Connection::exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw StoreError("sqlite: " + message + " (" + db_name(db_) + ")", rc);
  }
}

Statement Connection::prepare(std::string_view sql) {
  auto found = idle_.find(sql);
  if (found == idle_.end()) {
    auto idle = std::make_unique<Idle>();
    idle->sql = sql;
    const std::string_view key = idle->sql;
    found = idle_.emplace(key, std::move(idle)).first;
  }
  Idle& home = *found->second;
  if (!home.statements.empty()) {
    sqlite3_stmt* stmt = home.statements.back();
    home.statements.pop_back();
    return Statement(db_, home, stmt);
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) fail(db_, "cannot prepare \"" + std::string(sql) + "\"");
  if (stmt == nullptr) throw StoreError("sqlite: no statement in \"" + std::string(sql) + "\"");
  return Statement(db_, home, stmt);
}

void Connection::give_back(Idle& home, sqlite3_stmt* stmt) noexcept {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  try {
    home.statements.push_back(stmt);
  } catch (...) {
    sqlite3_finalize(stmt);  // out of memory: a statement not cached is merely slower
  }
}

void Connection::refuse_if_moved() {
  const auto now = std::chrono::steady_clock::now();
  if (!moved_ && now - moved_checked_at_ >= kMovedCheckEvery) {
    moved_checked_at_ = now;
    int moved = 0;
    moved_ = sqlite3_file_control(db_, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK &&
             moved != 0;
  }
  if (moved_) {
    throw StoreError("sqlite: the database file was removed or replaced (" + db_name(db_) + ")",
                     SQLITE_READONLY_DBMOVED);
  }
}

int64_t Connection::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

int Connection::changes() const {
  return sqlite3_changes(db_);
}

Statement::Statement(sqlite3* db, Connection::Idle& home, sqlite3_stmt* stmt)
    : db_(db), stmt_(stmt), home_(&home) {}

Statement::~Statement() {
  if (stmt_ != nullptr) Connection::give_back(*home_, stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), home_(other.home_) {
  other.stmt_ = nullptr;
}

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "cannot bind");
  return *this;
}

Statement& Statement::bind_text(int index, std::string_view value, sqlite3_destructor_type kept) {
  if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), kept, SQLITE_UTF8) !=
      SQLITE_OK) {
    fail(db_, "cannot bind");
  }
  return *this;
}

// TRANSIENT: SQLite copies, so callers may bind temporaries.
Statement& Statement::bind(int index, std::string_view value) {
  return bind_text(index, value, SQLITE_TRANSIENT);
}

Statement& Statement::bind_borrowed(int index, std::string_view value) {
  return bind_text(index, value, SQLITE_STATIC);
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "cannot bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, std::string("cannot run \"") + sqlite3_sql(stmt_) + "\"");
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  // reset() repeats the last step's error code, which step() already reported. The
  // bindings stay, as in SQLite, so a statement can be rerun with the same values.
  sqlite3_reset(stmt_);
}

int64_t Statement::column_int(int index) const {
  return sqlite3_column_int64(stmt_, index);
}

size_t Statement::column_bytes(int index) const {
  return static_cast<size_t>(sqlite3_column_bytes(stmt_, index));
}

std::string Statement::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (text == nullptr) return {};
  // Length after column_text, which may have converted the value to text.
  int size = sqlite3_column_bytes(stmt_, index);
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size));
}

bool Statement::column_is_null(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

}  // namespace agentrt::core
