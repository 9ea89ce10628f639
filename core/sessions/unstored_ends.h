// The ends of streams that could not be stored (a full disk, an I/O error). Such a
// stream's start was stored, so its row says "running", and its events were not: a
// follower got 404 and the row stayed running until the next start ended it as
// interrupted. What the stream's client was sent (its events up to the error and
// `done`) is kept here instead: followers are given it, and the next write that can
// store it does. A restart before that ends the row as interrupted, as for a killed
// agentd (SessionStore::end_abandoned_runs).
#pragma once

#include "core/store/state_store.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

class UnstoredEnds {
 public:
  struct End {
    std::string run_id, reason, events_json, ended_at;
    int64_t input_tokens = 0, output_tokens = 0;
  };
  // Past this many, the oldest is let go: its row then waits for the next start, as
  // every such row did before.
  static constexpr size_t kMost = 1000;

  void keep(End end);
  bool empty() const { return kept_.load(std::memory_order_acquire) == 0; }
  // The run's events as its client was sent them (a JSON array), when its end is kept.
  std::optional<std::string> events_json(const std::string& run_id) const;
  // Stores every kept end in one write, each on its row while that row still says
  // running (one deleted since is left alone), and lets go of them. On a failure they
  // stay kept and it returns false.
  bool store(StateStore& store);

 private:
  mutable std::mutex mutex_;
  std::vector<End> ends_;
  std::atomic<size_t> kept_{0};
};

}  // namespace agentrt::core
