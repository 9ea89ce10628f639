#include "migrations.h"

#include <agentrt/plugin.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

namespace agentrt::plugin_sqlite {

namespace {

std::optional<sdk::Host> migration_log;

void note(const std::string& line) {
  if (migration_log) migration_log->log(AGENTRT_LOG_INFO, line);
}

}  // namespace

void log_migrations_to(const sdk::Host& host) {
  migration_log = host;
}

void migrate_to(Database& db, const char* const* steps, int64_t count, int64_t target,
                const std::string& what, bool may_upgrade) {
  // Most opens find the store current: a plain read says so without the write lock.
  int64_t version = db.query_int("PRAGMA user_version");
  target = std::min(target, count);
  if (version == target) return;
  if (!may_upgrade && version < target)
    throw sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                     what + " has schema version " + std::to_string(version) +
                         ", older than this plugin's " + std::to_string(target) +
                         "; only `agentd serve` of this version upgrades it");
  Transaction tx(db, "BEGIN IMMEDIATE");
  version = db.query_int("PRAGMA user_version");
  if (version > count)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, what + " has schema version " + std::to_string(version) +
                                               ", newer than this plugin's " +
                                               std::to_string(count));
  if (version >= target) return;  // nothing to run; the transaction ends unchanged
  const auto began = std::chrono::steady_clock::now();
  note(what + ": upgrading the schema from version " + std::to_string(version) + " to " +
       std::to_string(target));
  for (int64_t step = version; step < target; ++step) db.exec(steps[step]);
  db.exec(("PRAGMA user_version = " + std::to_string(target)).c_str());
  tx.commit();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - began);
  note(what + ": upgraded to schema version " + std::to_string(target) + " in " +
       std::to_string(took.count()) + " ms");
}

}  // namespace agentrt::plugin_sqlite
