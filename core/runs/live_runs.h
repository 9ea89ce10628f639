// Runs in progress: their events so far (for followers of GET /runs/{id}/events), the
// flag that stops them, and which session each one keeps busy. A run leaves this
// registry only after its events are stored, so a follower that misses it here finds
// it complete in the store.
#pragma once

#include <nlohmann/json.hpp>
#include "core/plugin_host/cancel_waker.h"
#include "core/runs/event_text.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentrt::core {

class LiveRun {
 public:
  LiveRun(std::string id, std::string cell, std::string session_id, std::string actor);

  const std::string id, cell, session_id, actor;
  // A session's deletion holding it (LiveRuns::hold), not a run.
  bool is_hold() const { return id.empty(); }

  // Stamps `event` with the next seq, keeps its text (event_text.h) and wakes
  // followers. Returns that text, which stays valid as long as the run.
  const std::string& append(nlohmann::json event);
  // The same for a stream_delta event carrying `content`.
  const std::string& append_delta(std::string_view content);
  // The same for an event whose text `text_for(seq)` writes (event_text.h).
  template <class TextForSeq>
  const std::string& append_text(TextForSeq&& text_for) {
    std::lock_guard lock(mutex_);
    events_.push_back(text_for(static_cast<int64_t>(events_.size() + 1)));
    changed_.notify_all();
    return events_.back();
  }
  // The events so far as one JSON array, as the store keeps them; with `next` (an
  // event's text) after them when given.
  std::string events_json(std::string_view next = {}) const;
  // The seq the next event will have.
  int64_t next_seq() const {
    std::lock_guard lock(mutex_);
    return static_cast<int64_t>(events_.size() + 1);
  }

  // Asks the run to stop; the first reason given wins ("interrupted"). Also wakes a
  // provider call waiting on its upstream, through waker().
  void cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  CancelWaker& waker() { return waker_; }
  // Its session or cell is being deleted: cancels it, and whatever it has not stored
  // by then it never stores (SessionStore reads discarded() inside each of its writes).
  // A provider that ignores cancellation must not write a deleted session back.
  void discard();
  const std::atomic<bool>& discarded() const { return discarded_; }

  // Its done says `interrupted`: set before its end goes out, so that an interrupt that
  // comes after its answer is whole, while it is being stored, answers false.
  void end_interrupted() { ended_interrupted_.store(true, std::memory_order_relaxed); }
  bool ended_interrupted() const { return ended_interrupted_.load(std::memory_order_relaxed); }

  void finish();
  // Blocks until the run finishes or `timeout` passes; true when finished.
  bool wait_finished(std::chrono::milliseconds timeout) const;

  // Calls `deliver` for each event after `after` as it comes, until the run finishes or
  // `deliver` returns false. `keepalive` runs when nothing came for `idle`; it returns
  // false to stop following.
  void follow(int64_t after, const std::function<bool(const std::string&, int64_t)>& deliver,
              const std::function<bool()>& keepalive, std::chrono::milliseconds idle) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  // A deque, so that appending leaves earlier texts in place: append()'s result and a
  // follower's event outlive the lock without being copied.
  std::deque<std::string> events_;
  DeltaText delta_text_;
  bool finished_ = false;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> discarded_{false};
  std::atomic<bool> ended_interrupted_{false};
  CancelWaker waker_;
};

class LiveRuns {
 public:
  // Registers a run on its session; nullopt-like nullptr when the session is busy.
  std::shared_ptr<LiveRun> start(const std::string& run_id, const std::string& cell,
                                 const std::string& session_id, const std::string& actor);
  // Keeps a session busy with no run, for its deletion: no run starts on it until the
  // hold is removed. A hold has an empty id (is_hold), is found only by on_session,
  // and is nullptr when a run or another hold has the session.
  std::shared_ptr<LiveRun> hold(const std::string& cell, const std::string& session_id);
  void remove(const LiveRun& run);
  std::shared_ptr<LiveRun> find(const std::string& run_id) const;
  std::shared_ptr<LiveRun> on_session(const std::string& cell, const std::string& session) const;
  std::vector<std::shared_ptr<LiveRun>> all() const;

 private:
  // Keys are views of the run's own strings, which live as long as its entry: a start
  // or a lookup copies no id (two ordered maps of copied keys were 2% of agentd's CPU
  // at 64 concurrent /chat).
  struct SessionKey {
    std::string_view cell, session;
    bool operator==(const SessionKey& other) const {
      return cell == other.cell && session == other.session;
    }
  };
  struct SessionKeyHash {
    size_t operator()(const SessionKey& key) const;
  };

  mutable std::mutex mutex_;
  std::unordered_map<std::string_view, std::shared_ptr<LiveRun>> by_id_;
  std::unordered_map<SessionKey, std::shared_ptr<LiveRun>, SessionKeyHash> by_session_;
};

}  // namespace agentrt::core
