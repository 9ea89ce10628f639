// What a SQLite-backed store answers to the host's probe (ABI 1.5): whether it can take
// a write now. A store that SQLite once found damaged stays failing (nothing but an
// operator mends a file), whichever connection of the process saw it.
#pragma once

#include "sqlite_db.h"

namespace agentrt::plugin_sqlite {

// Called with every failed result code: remembers the file of `db` when `rc` says it
// is damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
void note_damage(sqlite3* db, int rc);

// Throws sdk::Error when the store was found damaged, or when a small write (the
// schema version written again, which goes through the WAL like any write) fails. A
// store that another connection holds locked is busy, not failing: that passes at
// once. The caller holds whatever serialises writes on `writer`.
void probe_write(Database& writer);

}  // namespace agentrt::plugin_sqlite
