#include "store_probe.h"

#include <agentrt/plugin.hpp>

#include <mutex>
#include <set>
#include <string>

namespace agentrt::plugin_sqlite {
namespace {

std::mutex damaged_mutex;
std::set<std::string>& damaged_files() {
  static std::set<std::string> files;
  return files;
}

std::string file_of(sqlite3* db) {
  const char* name = db == nullptr ? nullptr : sqlite3_db_filename(db, "main");
  return name == nullptr ? std::string() : std::string(name);
}

bool damage_seen(sqlite3* db) {
  const std::string file = file_of(db);
  std::lock_guard<std::mutex> lock(damaged_mutex);
  return damaged_files().count(file) != 0;
}

// Restores the usual busy wait when the probe ends, however it ends.
class NoBusyWait {
 public:
  explicit NoBusyWait(sqlite3* db) : db_(db) { sqlite3_busy_timeout(db_, 0); }
  ~NoBusyWait() { sqlite3_busy_timeout(db_, kBusyTimeoutMs); }
  NoBusyWait(const NoBusyWait&) = delete;
  NoBusyWait& operator=(const NoBusyWait&) = delete;

 private:
  sqlite3* db_;
};

}  // namespace

void note_damage(sqlite3* db, int rc) {
  const int primary = rc & 0xff;
  if (primary != SQLITE_CORRUPT && primary != SQLITE_NOTADB) return;
  std::string file = file_of(db);
  if (file.empty()) return;
  std::lock_guard<std::mutex> lock(damaged_mutex);
  damaged_files().insert(std::move(file));
}

void probe_write(Database& writer) {
  if (damage_seen(writer.handle()))
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     writer.label() + ": the store's file is damaged; restore it from a backup");
  writer.refuse_if_moved();
  NoBusyWait no_wait(writer.handle());
  const int rc = sqlite3_exec(writer.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  const int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) return;
  if (rc != SQLITE_OK) writer.fail("probe");
  try {
    const int64_t version = writer.query_int("PRAGMA user_version");
    writer.exec(("PRAGMA user_version = " + std::to_string(version)).c_str());
    writer.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(writer.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace agentrt::plugin_sqlite
