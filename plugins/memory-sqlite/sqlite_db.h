// The shared SQLite layer (plugins/sqlite-common) under this plugin's names.
#pragma once

#include "sqlite-common/sqlite_db.h"

#include <string>

namespace agentrt::memory_sqlite {

using plugin_sqlite::OpenMode;
using plugin_sqlite::Statement;
using plugin_sqlite::StatementUse;
using plugin_sqlite::Transaction;

// A connection to memory.db. Each is used by one thread at a time (MemoryStore and
// ReaderPool ensure it), so it goes without SQLite's per-connection mutex.
class Database : public plugin_sqlite::Database {
 public:
  Database(const std::string& path, OpenMode mode)
      : plugin_sqlite::Database(path, mode, "memory-sqlite",
                                plugin_sqlite::ConnectionMutex::kNone) {}
};

}  // namespace agentrt::memory_sqlite
