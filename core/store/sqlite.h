// A thin RAII face over the SQLite C API: a connection and prepared statements that
// throw StoreError with SQLite's message instead of returning codes.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentrt::core {

class StoreError : public std::runtime_error {
 public:
  // `sqlite_code`: SQLite's result code when SQLite refused, else 0.
  explicit StoreError(const std::string& message, int sqlite_code = 0)
      : std::runtime_error(message), sqlite_code_(sqlite_code) {}
  int sqlite_code() const { return sqlite_code_; }
  // The store cannot serve for now, but nothing is wrong with the request or the data:
  // another process holds it locked past the busy wait, the disk is full, or its file
  // was removed underneath this process (until a restart). The same request may succeed
  // later, or on another instance (503 with Retry-After, not 500).
  bool for_now() const {
    const int primary = sqlite_code_ & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_FULL ||
           sqlite_code_ == SQLITE_READONLY_DBMOVED;
  }
  // The storage itself failed (disk full, I/O error, damage, a file gone or read-only),
  // not a lock held elsewhere, a constraint or a mistake of ours: GET /health reports it.
  bool storage_fault() const {
    switch (sqlite_code_ & 0xff) {
      case SQLITE_FULL:
      case SQLITE_IOERR:
      case SQLITE_CORRUPT:
      case SQLITE_NOTADB:
      case SQLITE_CANTOPEN:
      case SQLITE_READONLY:
      case SQLITE_PROTOCOL:
        return true;
      default:
        return false;
    }
  }
  // The file's content is damaged: nothing but an operator mends that.
  bool damage() const {
    const int primary = sqlite_code_ & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
  }

 private:
  int sqlite_code_;
};

class Statement;

class Connection {
 public:
  // Opens or creates `path`; sets WAL, synchronous=NORMAL, foreign keys and busy
  // timeout. A read-only connection maps the file, so reads after another
  // connection's commit are memory reads, not pread calls. The writer does not: with
  // the file mapped, SQLite looks each page a read-only cursor fetches up in the WAL's
  // hash tables before its own cache, and a page changed by every commit (a table's
  // last leaf) is in them hundreds of times between checkpoints,
  // every copy passed by the lookup. Four such lookups a /chat were 11% of a commit's
  // instructions (store_bench under callgrind); the writer's own cache holds those
  // pages, since no other connection changes them. A database it creates gets pages
  // of kNewPageSize; an existing one keeps its own (SQLite cannot change it in WAL
  // mode).
  explicit Connection(const std::string& path, bool read_only = false);
  // A commit writes every page it touched to the WAL whole, and a /chat touches about
  // nine (a table or index leaf each), so the page size sets the bytes
  // each commit sends to the disk: 47 KB a /chat at one request at a time with 4 KB
  // pages, 28 KB with 2 KB (write_bytes in /proc/<pid>/io), and the ext4 write path
  // costs per page (c=1 p50 about 10 us lower). 1 KB pages wrote 19 KB but cost 6%
  // more CPU at 64 concurrent /chat (deeper trees, more pages a batch).
  static constexpr int kNewPageSize = 2048;
  // Bytes of a statement or savepoint journal kept in memory before SQLite moves it
  // to a temporary file (process-wide, the plugins' stores included; set before
  // SQLite's first use). SQLite allocates the in-memory journal in pieces of this size
  // and moves it with one write of a piece, and the unix VFS writes at most 128 KiB - 1
  // bytes a call (it fails a larger write with SQLITE_FULL). A group commit's writer
  // journals only the pages it changes, about 10 at a /chat, and its savepoint's
  // journal is emptied when it is released, so 120 KiB keeps every /chat's in memory.
  static constexpr int kStatementJournalInMemory = 120 << 10;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const char* sql);  // one or more statements, no results
  // A statement compiled once per connection and SQL text: when the returned
  // Statement ends, it goes back to this connection's cache (reset, bindings cleared)
  // instead of being finalized. Compiling was 15% of the CPU of a /chat. The
  // Statement must not outlive the connection.
  Statement prepare(std::string_view sql);
  int64_t last_insert_rowid() const;
  int changes() const;
  sqlite3* handle() const { return db_; }

  // Throws StoreError (SQLITE_READONLY_DBMOVED, for_now) when the file this connection
  // opened is no longer the one at its path, removed or replaced. SQLite checks that
  // only in rollback-journal mode: in WAL mode it goes on committing to the unlinked
  // files, and every commit acknowledged after a data dir's removal was lost at the
  // next start. The writer calls it before each write transaction. The look is a stat
  // of the path (SQLITE_FCNTL_HAS_MOVED), about 1.2 us, taken at most every
  // kMovedCheckEvery: one per transaction cost a /chat 3-7 us of CPU.
  void refuse_if_moved();
  static constexpr std::chrono::milliseconds kMovedCheckEvery{50};

 private:
  friend class Statement;
  // The compiled statements of one SQL text that are not in use: more than one when a
  // statement is in use twice at once (a query run inside the loop over the same
  // query's rows).
  struct Idle {
    std::string sql;
    std::vector<sqlite3_stmt*> statements;
  };
  static void give_back(Idle& home, sqlite3_stmt* stmt) noexcept;

  sqlite3* db_ = nullptr;
  std::chrono::steady_clock::time_point moved_checked_at_{};
  bool moved_ = false;
  // By SQL text, each key a view of its entry's own `sql`, so that a look-up takes the
  // caller's text as it is, and a statement in use holds its entry and goes back to it
  // without a second look-up (copying and hashing the text twice a statement was about
  // 1.3% of a /chat's instructions).
  std::unordered_map<std::string_view, std::unique_ptr<Idle>> idle_;
};

class Statement {
 public:
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds by 1-based index; each returns *this for chaining.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, std::string_view value);
  // Without SQLite's copy of the text: it reads `value` where it is, at every step,
  // until the statement goes back to its connection (which clears the bindings). For
  // the writes of every run, whose values all outlive their statements; bind() copies
  // and is the one for temporaries.
  Statement& bind_borrowed(int index, std::string_view value);
  Statement& bind_null(int index);

  bool step();  // true while a row is available; false when done
  void run();   // steps to completion, for statements without rows
  void reset();

  int64_t column_int(int index) const;
  std::string column_text(int index) const;
  size_t column_bytes(int index) const;  // the value's size as text or blob, without a copy
  bool column_is_null(int index) const;

 private:
  friend class Connection;
  Statement(sqlite3* db, Connection::Idle& home, sqlite3_stmt* stmt);
  Statement& bind_text(int index, std::string_view value, sqlite3_destructor_type kept);

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  Connection::Idle* home_;  // the statement returns there, its connection's cache, at its end
};

}  // namespace agentrt::core
