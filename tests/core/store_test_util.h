// What the state store's tests do to a store from outside: write a meta key, and wait
// for a number of writes to be queued.
#pragma once

#include "core/store/state_store.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

namespace agentrt::core::test_util {

inline void insert_key(Connection& db, const std::string& key) {
  db.prepare("INSERT INTO meta(key, value) VALUES(?, 'v')").bind(1, key).run();
}

// Whether `n` writes are queued within 5 s.
inline bool wait_for_pending(const StateStore& store, size_t n) {
  using namespace std::chrono_literals;
  for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(1ms))
    if (store.pending_writes() == n) return true;
  return false;
}

}  // namespace agentrt::core::test_util
