// Schema migrations for the plugins' SQLite stores: step N brings PRAGMA user_version
// from N-1 to N, and a released step never changes. One runner, so every store opens the
// same way: an up-to-date store is only read (no write, no lock held past the check),
// and a store newer than the plugin is refused, never touched.
#pragma once

#include "sqlite_db.h"

#include <agentrt/plugin.hpp>

#include <cstdint>
#include <string>

namespace agentrt::plugin_sqlite {

// Where migrate_to says what it does, for the plugin (this library is linked into each
// plugin on its own): a step can take seconds on a large store, and would otherwise go
// without a word. Set by the plugin's create before it opens its store.
void log_migrations_to(const sdk::Host& host);

// Runs steps[version .. target) in one IMMEDIATE transaction (which takes the write lock
// before reading the version, so two processes opening a new store cannot both run a
// step) and sets user_version to `target`, capped at `count`. `what` names the store in
// the error for a newer one, e.g. "memory-sqlite: memory.db".
// With `may_upgrade` false (a guest's open, ABI 1.6) a store older than `target` is
// refused instead, and nothing is written.
void migrate_to(Database& db, const char* const* steps, int64_t count, int64_t target,
                const std::string& what, bool may_upgrade = true);

}  // namespace agentrt::plugin_sqlite
