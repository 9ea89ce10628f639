#include "sqlite_db.h"

#include <agentrt/plugin.hpp>

#include <cstring>

namespace agentrt::auth_token {

Database::Database(const std::string& path) {
  // FULLMUTEX costs nothing noticeable here and keeps SQLite safe even if a caller
  // forgets the store's own lock.
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: cannot open '" + path + "': " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  try {
    sqlite3_busy_timeout(db_, 5000);
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

void Database::fail(const std::string& what) const {
  int rc = sqlite3_extended_errcode(db_);
  // A lock still held after the busy timeout is another process's transaction: the
  // caller may retry, unlike a corrupt or unreadable file.
  int32_t code = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED
                     ? AGENTRT_ERR_UNAVAILABLE
                     : AGENTRT_ERR_INTERNAL;
  throw sdk::Error(code, "auth-token: sqlite: " + what + ": " + sqlite3_errmsg(db_));
}

void Database::exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    int32_t code = (rc & 0xff) == SQLITE_BUSY ? AGENTRT_ERR_UNAVAILABLE : AGENTRT_ERR_INTERNAL;
    throw sdk::Error(code, "auth-token: sqlite: " + message);
  }
}

int64_t Database::query_int(const char* sql) {
  Statement s(*this, sql);
  StatementUse use(s);
  if (!use->step()) fail("no result");
  return use->column_int(0);
}

int Database::changes() const {
  return sqlite3_changes(db_);
}

Statement::Statement(Database& db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v3(db_.handle(), sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK || stmt_ == nullptr) db_.fail("cannot prepare statement");
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::reset() noexcept {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("cannot bind");
}

void Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK)
    db_.fail("cannot bind");
}

void Statement::bind(int index, const std::optional<std::string>& value) {
  if (value) {
    bind(index, std::string_view(*value));
  } else {
    bind_null(index);
  }
}

void Statement::bind(int index, const std::optional<int64_t>& value) {
  if (value) {
    bind(index, *value);
  } else {
    bind_null(index);
  }
}

void Statement::bind(int index, const Sha256Digest& value) {
  if (sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("cannot bind");
}

void Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("cannot bind");
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("step failed");
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::column_int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::string Statement::column_text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int len = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(len))
              : std::string();
}

std::optional<std::string> Statement::column_optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_text(column);
}

std::optional<int64_t> Statement::column_optional_int(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int(column);
}

Sha256Digest Statement::column_digest(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  Sha256Digest digest{};
  if (blob == nullptr || sqlite3_column_bytes(stmt_, column) != static_cast<int>(digest.size()))
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: stored hash has the wrong size");
  std::memcpy(digest.data(), blob, digest.size());
  return digest;
}

}  // namespace agentrt::auth_token
