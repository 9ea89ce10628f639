// A small RAII layer over the SQLite C API for the plugins that keep a store in SQLite:
// a connection, statements prepared once and reused, a scope that resets a statement
// so it never pins a WAL snapshot, and a transaction that rolls back unless committed.
// Failures become agentrt::sdk::Error prefixed with the owning plugin's name; bound
// values never appear in messages, since they are secrets (token hashes) or memories.
#pragma once

#include <sqlite3.h>
#include <agentrt/plugin.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::plugin_sqlite {

class Database;

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, int64_t value);
  void bind(int index, std::string_view value);
  void bind(int index, const std::string& value) { bind(index, std::string_view(value)); }
  void bind(int index, const std::optional<std::string>& value);
  void bind_null(int index);
  // A separate name, not a bind overload: bytes bound as text would compare and
  // collate as text.
  void bind_blob(int index, const void* data, size_t size);

  // Binds the named parameter (":name"); throws when the statement has no such name,
  // so a filter can never be silently left unbound.
  template <class T>
  void bind(const char* name, const T& value) {
    bind(parameter(name), value);
  }

  // True when a row is ready, false when the statement is done.
  bool step();

  bool is_null(int column) const;
  int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<std::string> column_optional_text(int column) const;
  // The column's bytes, valid until the next step or reset; empty for NULL.
  std::string_view column_blob(int column) const;

  sqlite3_stmt* handle() const { return stmt_; }

 private:
  friend class StatementUse;
  void reset() noexcept;
  int parameter(const char* name);

  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Scope of one use of a cached statement: resetting on exit ends the statement's
// implicit read transaction at once, so a long-lived cached statement never pins the
// WAL; clearing its bindings makes a parameter the next use leaves unbound NULL rather
// than this use's value.
class StatementUse {
 public:
  explicit StatementUse(Statement& s) : s_(s) {}
  ~StatementUse() { s_.reset(); }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;
  Statement* operator->() { return &s_; }
  Statement& operator*() { return s_; }

 private:
  Statement& s_;
};

enum class OpenMode { kReadWrite, kReadOnly };

// How long a statement waits on another connection's lock before it fails as busy.
constexpr int kBusyTimeoutMs = 5000;

// kNone suits a connection its owner already hands to one thread at a time; kFull
// keeps SQLite safe even if a caller forgets the owner's lock.
enum class ConnectionMutex { kNone, kFull };

class Database {
 public:
  // `label` (the plugin's name) starts every error message, as the plugin's own
  // errors do. kReadWrite creates the file when it is missing.
  Database(const std::string& path, OpenMode mode, std::string label,
           ConnectionMutex mutex = ConnectionMutex::kNone);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const char* sql);
  int64_t query_int(const char* sql);
  int changes() const;
  sqlite3* handle() const { return db_; }
  const std::string& label() const { return label_; }

  // Throws the Error that matches the connection's last failure.
  [[noreturn]] void fail(const std::string& what) const;

  // Throws AGENTRT_ERR_UNAVAILABLE when the file this connection opened is no longer
  // the one at its path, removed or replaced: in WAL mode SQLite goes on committing to
  // the unlinked files, and writes acknowledged after a data dir's removal were lost at
  // the next start. Every statement that writes calls it (Statement::step). The look is
  // a stat of the path (SQLITE_FCNTL_HAS_MOVED), taken at most every 50 ms.
  void refuse_if_moved();

 private:
  sqlite3* db_ = nullptr;
  std::string label_;
  std::chrono::steady_clock::time_point moved_checked_at_{};
  bool moved_ = false;
};

// A transaction that rolls back unless committed, for atomic multi-statement changes.
class Transaction {
 public:
  Transaction(Database& db, const char* begin_sql);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool open_ = true;
};

}  // namespace agentrt::plugin_sqlite
