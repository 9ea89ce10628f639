// One SQLite connection to memory.db with what every operation on it needs: the FTS5
// tokenizer and a cache of prepared statements keyed by their SQL text. A connection
// is used by one thread at a time; MemoryStore and ReaderPool guarantee that.
#pragma once

#include "fts_support.h"
#include "sqlite_db.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace agentrt::memory_sqlite {

class Connection {
 public:
  Connection(const std::string& path, OpenMode mode);

  Database& db() { return db_; }
  Tokenizer& tokenizer() { return tokenizer_; }

  // The statement for `sql`, prepared on first use and kept for the connection's life.
  Statement& prepared(const std::string& sql);

 private:
  Database db_;
  Tokenizer tokenizer_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
};

// One consistent read snapshot across several statements on `c`. BEGIN and COMMIT run
// as cached statements: parsing them anew each time cost more than the seven tally
// lookups of a count they wrap. Ends the transaction on every path.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Connection& c);
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Connection& c_;
};

// The writer: creates the schema and owns the WAL settings of the file. SQLite's
// automatic checkpoint copies the WAL into the file in the save whose commit takes it
// past `checkpoint_pages`.
std::unique_ptr<Connection> open_writer(const std::string& path, int checkpoint_pages);

// A read-only connection with the search support functions registered.
std::unique_ptr<Connection> open_reader(const std::string& path);

}  // namespace agentrt::memory_sqlite
