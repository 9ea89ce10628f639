// state.db's meta table: what the engine remembers of the data dir between starts (the
// stores beside it, the mode it was served in, the cursor key), one text per key.
#pragma once

#include "core/store/sqlite.h"

#include <optional>
#include <string>

namespace agentrt::core {

std::optional<std::string> meta_value(Connection& db, const char* key);
void set_meta_value(Connection& db, const char* key, const std::string& value);

}  // namespace agentrt::core
