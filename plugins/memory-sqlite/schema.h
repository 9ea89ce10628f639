// The store's file and schema: <data_dir>/memory.db, private to the owner, brought up
// to the current schema version on open.
#pragma once

#include "sqlite_db.h"

#include <string>

namespace agentrt::memory_sqlite {

// Creates <data_dir>/memory.db with mode 0600 if needed (and narrows an existing
// file to 0600); returns its path.
std::string prepare_private_file(const std::string& data_dir);

// Runs the migration steps the file has not seen yet, in one IMMEDIATE transaction.
void migrate(Database& db);

// The version migrate() brings a file to: the number of migration steps.
int64_t schema_version();

// Runs the steps up to `version` only, leaving the file as an older release would
// have; tests build their upgrade cases with it.
void migrate_to(Database& db, int64_t version);

// The secondary indexes of memory_entries, named where statements choose them.
inline constexpr const char* kIndexByLayer = "memory_by_layer";
inline constexpr const char* kIndexByActor = "memory_by_actor";
inline constexpr const char* kIndexByNamespace = "memory_by_namespace";
inline constexpr const char* kIndexBySession = "memory_by_session";
inline constexpr const char* kIndexBySeq = "memory_by_seq";

// Exact per-filter tallies of memory_entries and their tokens, kept by triggers (schema
// steps 3 and 4).
inline constexpr const char* kTotalsTable = "memory_totals";

}  // namespace agentrt::memory_sqlite
