// The shared SQLite layer (plugins/sqlite-common) under this plugin's names, plus the
// column types only the token store has: a SHA-256 digest stored as a 32-byte blob and
// nullable integer times.
#pragma once

#include "token_format.h"

#include "sqlite-common/sqlite_db.h"

#include <cstdint>
#include <optional>

namespace agentrt::auth_token {

using plugin_sqlite::Database;
using plugin_sqlite::Statement;
using plugin_sqlite::StatementUse;

void bind_digest(Statement& s, int index, const Sha256Digest& digest);
// Throws when the column is not a 32-byte blob.
Sha256Digest column_digest(const Statement& s, int column);

// Unset binds NULL; NULL reads as unset.
void bind_optional_int(Statement& s, int index, const std::optional<int64_t>& value);
std::optional<int64_t> column_optional_int(const Statement& s, int column);

}  // namespace agentrt::auth_token
