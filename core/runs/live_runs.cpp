#include "core/runs/live_runs.h"

namespace agentrt::core {

LiveRun::LiveRun(std::string id_, std::string cell_, std::string session_id_, std::string actor_)
    : id(std::move(id_)),
      cell(std::move(cell_)),
      session_id(std::move(session_id_)),
      actor(std::move(actor_)) {}

const std::string& LiveRun::append(nlohmann::json event) {
  std::lock_guard lock(mutex_);
  event["seq"] = static_cast<int64_t>(events_.size() + 1);
  events_.push_back(event_text(event));
  changed_.notify_all();
  return events_.back();
}

const std::string& LiveRun::append_delta(std::string_view content) {
  std::lock_guard lock(mutex_);
  events_.push_back(delta_text_(content, static_cast<int64_t>(events_.size() + 1)));
  changed_.notify_all();
  return events_.back();
}

std::string LiveRun::events_json(std::string_view next) const {
  std::lock_guard lock(mutex_);
  size_t size = 3 + events_.size() + next.size();
  for (const std::string& event : events_) size += event.size();
  std::string out;
  out.reserve(size);
  out += '[';
  for (const std::string& event : events_) {
    if (out.size() > 1) out += ',';
    out += event;
  }
  if (!next.empty()) {
    if (out.size() > 1) out += ',';
    out += next;
  }
  out += ']';
  return out;
}

void LiveRun::cancel() {
  cancelled_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    changed_.notify_all();
  }
  waker_.wake();
}

void LiveRun::discard() {
  // Before the deletion's write is queued (or inside it): the run's writes, queued to
  // the same writer after it, see the flag.
  discarded_.store(true);
  cancel();
}

void LiveRun::finish() {
  std::lock_guard lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

bool LiveRun::wait_finished(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return finished_; });
}

void LiveRun::follow(int64_t after, const std::function<bool(const std::string&, int64_t)>& deliver,
                     const std::function<bool()>& keepalive, std::chrono::milliseconds idle) const {
  size_t next = after < 0 ? 0 : static_cast<size_t>(after);
  std::unique_lock lock(mutex_);
  while (true) {
    while (next < events_.size()) {
      const std::string& event = events_[next++];
      lock.unlock();  // never write to a client while holding the run
      bool more = deliver(event, static_cast<int64_t>(next));  // seq is its place from 1
      lock.lock();
      if (!more) return;
    }
    if (finished_) return;
    if (!changed_.wait_for(lock, idle, [&] { return finished_ || next < events_.size(); })) {
      lock.unlock();
      bool more = keepalive();
      lock.lock();
      if (!more) return;
    }
  }
}

size_t LiveRuns::SessionKeyHash::operator()(const SessionKey& key) const {
  const size_t cell = std::hash<std::string_view>{}(key.cell);
  return cell ^ (std::hash<std::string_view>{}(key.session) + 0x9e3779b97f4a7c15ULL + (cell << 6) +
                 (cell >> 2));
}

std::shared_ptr<LiveRun> LiveRuns::start(const std::string& run_id, const std::string& cell,
                                         const std::string& session_id, const std::string& actor) {
  // Built before the lock: a busy session, the rare case, just drops it.
  auto run = std::make_shared<LiveRun>(run_id, cell, session_id, actor);
  std::lock_guard lock(mutex_);
  if (!by_session_.try_emplace(SessionKey{run->cell, run->session_id}, run).second) return nullptr;
  // A key views its own entry's run; a (never seen) duplicate id must not keep a view
  // of the run it replaces.
  by_id_.erase(run->id);
  by_id_.emplace(run->id, run);
  return run;
}

std::shared_ptr<LiveRun> LiveRuns::hold(const std::string& cell, const std::string& session_id) {
  auto hold = std::make_shared<LiveRun>("", cell, session_id, "");
  std::lock_guard lock(mutex_);
  if (!by_session_.try_emplace(SessionKey{hold->cell, hold->session_id}, hold).second)
    return nullptr;
  return hold;
}

void LiveRuns::remove(const LiveRun& run) {
  std::lock_guard lock(mutex_);
  auto by_id = by_id_.find(run.id);
  if (by_id != by_id_.end() && by_id->second.get() == &run) by_id_.erase(by_id);
  auto it = by_session_.find(SessionKey{run.cell, run.session_id});
  if (it != by_session_.end() && it->second.get() == &run) by_session_.erase(it);
}

std::shared_ptr<LiveRun> LiveRuns::find(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = by_id_.find(run_id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::shared_ptr<LiveRun> LiveRuns::on_session(const std::string& cell,
                                              const std::string& session) const {
  std::lock_guard lock(mutex_);
  auto it = by_session_.find(SessionKey{cell, session});
  return it == by_session_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<LiveRun>> LiveRuns::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<LiveRun>> out;
  for (const auto& [id, run] : by_id_) out.push_back(run);
  return out;
}

}  // namespace agentrt::core
