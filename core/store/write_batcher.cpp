#include "core/store/write_batcher.h"

#include "core/metrics/metrics.h"

#include <sched.h>

#include <algorithm>

namespace agentrt::core {
namespace {

// How many times a new leader steps aside for writers about to arrive (see gather()).
constexpr int kGatherYields = 4;

// After a failed statement SQLite may already have rolled the whole transaction back
// on its own (I/O error, disk full); then there is no savepoint left to return to.
bool transaction_open(Connection& db) {
  return sqlite3_get_autocommit(db.handle()) == 0;
}

void rollback(Connection& db) {
  if (transaction_open(db)) sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

}  // namespace

void WriteBatcher::write(const std::function<void(Connection&)>& work) {
  Job job;
  job.work = &work;
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.push_back(&job);
  for (;;) {
    if (!job.taken && !leading_ && !exclusive_waiting_) {
      lead(lock);  // the batch held this job
      break;
    }
    lock.unlock();
    if (job.signal.wait() == Signal::kDone) break;
    lock.lock();  // our turn to lead, unless a leader took the job meanwhile
    if (!job.signal.rearm()) break;
  }
  if (job.error) std::rethrow_exception(job.error);
}

// When every core is busy, the writers that will join the next commit are runnable
// but not running: yielding lets them queue first, so one commit serves them all (at
// 64 concurrent /chat on 2 cores, batches of ~30 instead of ~2, 10-15% less CPU per
// request). Stops once every writer on its way has queued, or a yield brings no one.
void WriteBatcher::gather(std::unique_lock<std::mutex>& lock) {
  for (int round = 0; round < kGatherYields; ++round) {
    const size_t queued = queue_.size();
    if (static_cast<size_t>(std::max(coming_.load(std::memory_order_relaxed), 0)) <= queued) return;
    ++gather_yields_;
    lock.unlock();
    sched_yield();
    lock.lock();
    if (round > 0 && queue_.size() == queued) return;
  }
}

void WriteBatcher::lead(std::unique_lock<std::mutex>& lock) {
  leading_ = true;
  gather(lock);
  std::vector<Job*> batch;
  batch.swap(queue_);
  for (Job* job : batch) job->taken = true;
  ++commits_;
  lock.unlock();
  metrics::Metrics* measured = metrics::active();
  const auto began = measured ? metrics::Clock::now() : metrics::Clock::time_point{};
  commit(batch);
  if (measured) measured->store_committed(metrics::Clock::now() - began);
  lock.lock();
  leading_ = false;
  hand_over_locked();
  lock.unlock();
  // Outside the lock, so each writer woken leaves at once; a job is gone as soon as
  // its writer sees kDone, so none is touched after its post.
  for (Job* done : batch) done->signal.post(Signal::kDone);
}

void WriteBatcher::hand_over_locked() {
  if (exclusive_waiting_)
    idle_.notify_one();
  else if (!queue_.empty())
    queue_.front()->signal.post(Signal::kYourTurn);
}

WriteBatcher::Signal::State WriteBatcher::Signal::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  posted_.wait(lock, [this] { return state_ != kWaiting; });
  return state_;
}

bool WriteBatcher::Signal::rearm() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == kDone) return false;
  state_ = kWaiting;
  return true;
}

// Notified with the lock held: the waiter can see kDone, and leave with its Signal,
// only once the lock is released, after which nothing of it is touched here. What the
// leader wrote for the waiter (its error) is visible to it through the same lock.
void WriteBatcher::Signal::post(State state) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != kDone) state_ = state;
  posted_.notify_one();
}

void WriteBatcher::exclusive(const std::function<void()>& fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  exclusive_waiting_ = true;
  idle_.wait(lock, [this] { return !leading_; });
  exclusive_waiting_ = false;
  leading_ = true;
  hold_writer(lock, fn);
}

bool WriteBatcher::when_idle(const std::function<void(Connection&)>& fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (leading_ || exclusive_waiting_ || !queue_.empty()) return false;
  leading_ = true;
  hold_writer(lock, [&] { fn(writer_); });
  return true;
}

void WriteBatcher::hold_writer(std::unique_lock<std::mutex>& lock,
                               const std::function<void()>& fn) {
  lock.unlock();
  try {
    fn();
  } catch (...) {
    lock.lock();
    leading_ = false;
    hand_over_locked();
    throw;
  }
  lock.lock();
  leading_ = false;
  hand_over_locked();
}

WriteBatcher::Coming::Coming(WriteBatcher& batcher) : batcher_(&batcher) {
  batcher_->coming_.fetch_add(1, std::memory_order_relaxed);
}

WriteBatcher::Coming::~Coming() {
  if (batcher_ != nullptr) batcher_->coming_.fetch_sub(1, std::memory_order_relaxed);
}

WriteBatcher::Coming::Coming(Coming&& other) noexcept : batcher_(other.batcher_) {
  other.batcher_ = nullptr;
}

WriteBatcher::Coming& WriteBatcher::Coming::operator=(Coming&& other) noexcept {
  if (this != &other) {
    if (batcher_ != nullptr) batcher_->coming_.fetch_sub(1, std::memory_order_relaxed);
    batcher_ = other.batcher_;
    other.batcher_ = nullptr;
  }
  return *this;
}

uint64_t WriteBatcher::commits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return commits_;
}

uint64_t WriteBatcher::gather_yields() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return gather_yields_;
}

size_t WriteBatcher::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void WriteBatcher::commit_alone(Job& job) {
  try {
    writer_.refuse_if_moved();
    writer_.prepare("BEGIN IMMEDIATE").run();
    (*job.work)(writer_);
    writer_.prepare("COMMIT").run();
  } catch (...) {
    rollback(writer_);
    job.error = std::current_exception();
  }
}

void WriteBatcher::run_in_savepoint(Job& job) {
  writer_.prepare("SAVEPOINT job").run();
  try {
    (*job.work)(writer_);
    writer_.prepare("RELEASE job").run();
  } catch (...) {
    job.error = std::current_exception();
    if (!transaction_open(writer_)) throw;  // the batch is gone; commit() fails it all
    writer_.prepare("ROLLBACK TO job").run();
    writer_.prepare("RELEASE job").run();
  }
}

void WriteBatcher::commit(const std::vector<Job*>& batch) {
  if (batch.size() == 1) return commit_alone(*batch.front());
  try {
    writer_.refuse_if_moved();
    writer_.prepare("BEGIN IMMEDIATE").run();
    for (Job* job : batch) run_in_savepoint(*job);
    writer_.prepare("COMMIT").run();
  } catch (...) {
    // Nothing of the batch is committed: every job that thought it succeeded learns
    // why it did not.
    rollback(writer_);
    const std::exception_ptr failure = std::current_exception();
    for (Job* job : batch)
      if (!job->error) job->error = failure;
  }
}

}  // namespace agentrt::core
