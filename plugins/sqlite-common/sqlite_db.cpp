#include "sqlite_db.h"

#include "store_probe.h"

#include <agentrt/plugin.hpp>

#include <utility>

namespace agentrt::plugin_sqlite {
namespace {

// The store cannot serve for now, though nothing is wrong with the request or the data:
// a lock still held after the busy timeout (another process's transaction), a full disk,
// or a file removed underneath the process (refuse_if_moved refuses writes to it). The
// caller may retry, later or elsewhere, unlike with a corrupt or unreadable file. The
// host's own state store judges the same way (core/store/sqlite.h, StoreError::for_now).
int32_t code_for(int rc) {
  int primary = rc & 0xff;
  bool for_now = primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_FULL ||
                 rc == SQLITE_READONLY_DBMOVED;
  return for_now ? AGENTRT_ERR_UNAVAILABLE : AGENTRT_ERR_INTERNAL;
}

int open_flags(OpenMode mode, ConnectionMutex mutex) {
  int access = mode == OpenMode::kReadOnly ? SQLITE_OPEN_READONLY
                                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  return access | (mutex == ConnectionMutex::kFull ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX);
}

}  // namespace

Database::Database(const std::string& path, OpenMode mode, std::string label, ConnectionMutex mutex)
    : label_(std::move(label)) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, open_flags(mode, mutex), nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw sdk::Error(AGENTRT_ERR_INTERNAL, label_ + ": cannot open '" + path + "': " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

void Database::fail(const std::string& what) const {
  note_damage(db_, sqlite3_extended_errcode(db_));
  throw sdk::Error(code_for(sqlite3_extended_errcode(db_)),
                   label_ + ": sqlite: " + what + ": " + sqlite3_errmsg(db_));
}

void Database::exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    note_damage(db_, rc);
    throw sdk::Error(code_for(rc), label_ + ": sqlite: " + message);
  }
}

void Database::refuse_if_moved() {
  const auto now = std::chrono::steady_clock::now();
  if (!moved_ && now - moved_checked_at_ >= std::chrono::milliseconds(50)) {
    moved_checked_at_ = now;
    int moved = 0;
    moved_ = sqlite3_file_control(db_, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK &&
             moved != 0;
  }
  if (moved_)
    throw sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                     label_ + ": sqlite: the database file was removed or replaced");
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

int Statement::parameter(const char* name) {
  int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index == 0)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     db_.label() + ": statement has no parameter " + std::string(name));
  return index;
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

void Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("cannot bind");
}

void Statement::bind_blob(int index, const void* data, size_t size) {
  if (sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("cannot bind");
}

bool Statement::step() {
  if (!sqlite3_stmt_readonly(stmt_)) db_.refuse_if_moved();
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

double Statement::column_double(int column) const {
  return sqlite3_column_double(stmt_, column);
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

std::string_view Statement::column_blob(int column) const {
  // Pointer first, then size: the order SQLite documents as safe, since a later
  // format conversion could free the buffer an earlier pointer points into.
  const void* blob = sqlite3_column_blob(stmt_, column);
  int len = sqlite3_column_bytes(stmt_, column);
  return blob ? std::string_view(static_cast<const char*>(blob), static_cast<size_t>(len))
              : std::string_view();
}

Transaction::Transaction(Database& db, const char* begin_sql) : db_(db) {
  db_.exec(begin_sql);
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace agentrt::plugin_sqlite
