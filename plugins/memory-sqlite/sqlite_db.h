// A small RAII layer over the SQLite C API: a connection, statements prepared once and
// reused, and a scope that resets a statement so it never pins a WAL snapshot. SQLite
// failures become agentrt::sdk::Error; bound values never appear in messages, since
// they are memory contents.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::memory_sqlite {

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

  sqlite3_stmt* handle() const { return stmt_; }

 private:
  friend class StatementUse;
  void reset() noexcept;
  int parameter(const char* name);

  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// One use of a cached statement; resetting on exit ends its implicit read transaction.
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

class Database {
 public:
  // The connection is used by one thread at a time (the store's own locking ensures
  // it), so it is opened without SQLite's per-connection mutex.
  Database(const std::string& path, OpenMode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const char* sql);
  int64_t query_int(const char* sql);
  int changes() const;
  sqlite3* handle() const { return db_; }

  // Throws the Error that matches the connection's last failure.
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
};

// A transaction that rolls back unless committed, for atomic multi-statement changes
// (readers use Connection's ReadSnapshot, whose statements are cached).
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

}  // namespace agentrt::memory_sqlite
