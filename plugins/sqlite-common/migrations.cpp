#include "migrations.h"

#include <agentrt/plugin.hpp>

#include <algorithm>

namespace agentrt::plugin_sqlite {

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
  for (int64_t step = version; step < target; ++step) db.exec(steps[step]);
  db.exec(("PRAGMA user_version = " + std::to_string(target)).c_str());
  tx.commit();
}

}  // namespace agentrt::plugin_sqlite
