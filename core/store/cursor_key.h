// The data dir's key for list cursors (agentrt/cursor_seal.hpp): made at its first
// start and kept in state.db's meta table, so cursors outlive a restart. A cursor that
// carried a row's position in the clear told its holder how many rows every actor and
// cell wrote between two of its pages.
#pragma once

#include "core/store/state_store.h"

#include <string>

namespace agentrt::core {

// 32 hex digits: the key the store holds, made first if it holds none.
std::string cursor_key(StateStore& store);

}  // namespace agentrt::core
