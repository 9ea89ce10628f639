// Group commit for the one writer connection. Concurrent writers each hand over their
// work; the first to find the writer idle becomes the leader and runs everything queued
// so far in one transaction, each caller's work inside its own savepoint, so one
// failing caller rolls back only its own changes. One commit then serves many
// requests: under load the per-transaction cost (locks, WAL frame headers, the same
// index pages rewritten) is paid once per batch instead of once per request, and a
// lone writer pays nothing extra (a batch of one runs without a savepoint). A new
// leader first yields the core a few times, so writers that are ready to run but not
// running (every core busy) queue before it takes the batch; it does so only while a
// writer announced as on its way (Coming) has not queued yet.
#pragma once

#include "core/store/sqlite.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace agentrt::core {

class WriteBatcher {
 public:
  explicit WriteBatcher(Connection& writer) : writer_(writer) {}

  // Marks a writer as on its way for as long as it lives (a run, until it has stored
  // its end). A leader yields to gather only while more writers are on their way than
  // are queued: one request at a time has nobody to wait for, and a yield there handed
  // the core to whatever else was runnable (the checkpoint thread, a kernel worker)
  // for up to a scheduler tick, 1-4 ms, about 10 times in 15,000 /chat.
  class Coming {
   public:
    explicit Coming(WriteBatcher& batcher);
    ~Coming();
    Coming(Coming&& other) noexcept;
    Coming& operator=(Coming&& other) noexcept;
    Coming(const Coming&) = delete;
    Coming& operator=(const Coming&) = delete;

   private:
    WriteBatcher* batcher_;
  };

  // Runs `work` in a write transaction shared with whatever else is queued; returns
  // once that transaction committed, or rethrows what `work` threw (its changes rolled
  // back) or what the commit failed with, a file removed underneath the store included
  // (Connection::refuse_if_moved). Not reentrant: `work` must not write().
  void write(const std::function<void(Connection&)>& work);

  // Runs `fn` while no write transaction is open and none can start; writers that
  // arrive meanwhile queue and commit together afterwards. For the WAL checkpoint that
  // must catch up with a writer that never pauses (wal_checkpointer.h).
  void exclusive(const std::function<void()>& fn);

  // Runs `fn` on the writer connection, outside any transaction, when no write is under
  // way, queued or waited for, and returns true; returns false at once otherwise.
  // Writers that arrive meanwhile queue and commit afterwards, so `fn` must be short,
  // and must not write() (it would wait for itself).
  bool when_idle(const std::function<void(Connection&)>& fn);

  // Writers waiting for a leader to pick them up (tests and diagnostics).
  size_t pending() const;
  // Transactions led so far, each serving one or more writers (tests and diagnostics).
  uint64_t commits() const;
  // Writers on their way now, and the yields leaders made to gather (tests and
  // diagnostics).
  int coming() const { return coming_.load(std::memory_order_relaxed); }
  uint64_t gather_yields() const;

 private:
  // One waiting writer's wake-up, with a mutex and condition variable of its own: a
  // commit wakes the writers it served and the one next in line to lead, not every
  // writer queued (at 64 concurrent /chat, waking all of them after each commit was 8%
  // of agentd's CPU in futex calls), and a woken writer takes only its own mutex, not
  // mutex_, which the leader or the writer woken before it may hold (with one
  // condition variable on mutex_ each woken writer slept a second time on it, and the
  // writers left one by one).
  class Signal {
   public:
    enum State { kWaiting, kYourTurn, kDone };
    // Sleeps until something is posted; returns kYourTurn or kDone.
    State wait();
    // After kYourTurn: back to waiting. False when kDone was posted meanwhile.
    bool rearm();
    // kYourTurn (look again, under mutex_) or kDone (final). After kDone the waiter may
    // leave, and its Signal go, as soon as this returns.
    void post(State state);

   private:
    std::mutex mutex_;
    std::condition_variable posted_;
    State state_ = kWaiting;
  };

  struct Job {
    const std::function<void(Connection&)>* work = nullptr;
    std::exception_ptr error;
    bool taken = false;  // in a leader's batch (under mutex_)
    Signal signal;
  };
  // Commits the queue, `lock`'s caller's job included; returns with `lock` released.
  void lead(std::unique_lock<std::mutex>& lock);
  void gather(std::unique_lock<std::mutex>& lock);
  void hand_over_locked();  // wakes whoever may act now that no one leads
  // With leading_ just set under `lock`: runs `fn` unlocked, then hands the writer on,
  // also when `fn` throws.
  void hold_writer(std::unique_lock<std::mutex>& lock, const std::function<void()>& fn);
  void commit(const std::vector<Job*>& batch);
  void commit_alone(Job& job);
  void run_in_savepoint(Job& job);

  Connection& writer_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;  // for exclusive(): no leader any more
  std::vector<Job*> queue_;
  bool leading_ = false;
  uint64_t commits_ = 0;
  uint64_t gather_yields_ = 0;
  bool exclusive_waiting_ = false;  // first in line: writers do not lead before it
  std::atomic<int> coming_{0};
};

}  // namespace agentrt::core
