// A minimal RAII layer over the SQLite C API: one connection, statements prepared once
// and reused. Failures become agentrt::sdk::Error; bound values never appear in
// messages, so a secret hash cannot leak through one.
#pragma once

#include "sha256.h"

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::auth_token {

class Database;

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, int64_t value);
  void bind(int index, std::string_view value);
  void bind(int index, const std::optional<std::string>& value);
  void bind(int index, const std::optional<int64_t>& value);
  void bind(int index, const Sha256Digest& value);
  void bind_null(int index);

  // True when a row is ready, false when the statement is done.
  bool step();

  bool is_null(int column) const;
  int64_t column_int(int column) const;
  std::string column_text(int column) const;
  std::optional<std::string> column_optional_text(int column) const;
  std::optional<int64_t> column_optional_int(int column) const;
  // Throws when the column is not a 32-byte blob.
  Sha256Digest column_digest(int column) const;

 private:
  friend class StatementUse;
  void reset() noexcept;

  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Scope of one use of a cached statement: resetting on exit ends the statement's
// read transaction at once, so a long-lived cached statement never pins the WAL.
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

class Database {
 public:
  explicit Database(const std::string& path);
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

}  // namespace agentrt::auth_token
