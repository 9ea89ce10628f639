// The stores beside state.db in the data dir (auth.db, memory.db, or a third-party
// plugin's *.db), recorded in state.db at each start so that the next start notices
// one that went missing. A data dir that lost auth.db or memory.db (a partial restore,
// a backup of state.db alone) once started afresh without a word: every token dead and
// no admin token made, or all memory gone. state.db going missing beside
// them is the mirror case, refused by StateStore.
#pragma once

#include "core/store/state_store.h"

#include <string>
#include <vector>

namespace agentrt::core {

// Whether the SQLite store at `path` holds data: its file or its write-ahead log is not
// empty.
bool store_holds_data(const std::string& path);
// The *.db files of `data_dir` other than state.db that hold data, by name, sorted.
std::vector<std::string> stores_beside_state(const std::string& data_dir);

// StoreError naming the first store the last start recorded that is now missing or
// empty. Read only: run before the plugins open (and would make) their stores.
void refuse_lost_stores(const StateStore& store, const std::string& data_dir);

// Records the stores the data dir holds now, after a start that opened them all.
void record_stores(StateStore& store, const std::string& data_dir);

}  // namespace agentrt::core
