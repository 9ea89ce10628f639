// The session side of RunService: listing, reading, interrupting and deleting
// sessions, and following a run's events. Visibility is one rule: a non-admin token
// sees the sessions of its own actor only; others do not exist for it (404).
#include "core/domain/errors.h"
#include "core/runs/event_text.h"
#include "core/runs/run_service.h"

namespace agentrt::core {

namespace {

// Holds a session for its deletion (LiveRuns::hold), from before its rows go to after
// its memory has: a run that started in between would read the history being deleted
// and then write the session back with its turn. A run already on the session is
// discarded and waited for first. Should that run ignore its cancellation past
// `stop_wait`, it keeps the session, and the deletion goes on without the hold: the
// run stores nothing (its discarded flag is set before the deletion's write).
class SessionHold {
 public:
  SessionHold(LiveRuns& live, const std::string& cell, const std::string& session,
              std::chrono::milliseconds stop_wait)
      : live_(live), hold_(live.hold(cell, session)) {
    if (hold_) return;
    // Discarded before the deletion is written, so a run still going when it commits
    // cannot write the session back, nor leave its messages for whoever takes the id
    // next.
    if (auto running = live.on_session(cell, session)) {
      running->discard();
      running->wait_finished(stop_wait);
    }
    hold_ = live.hold(cell, session);
    // Still taken: by that run, past stop_wait, or by one that started meanwhile.
    if (!hold_)
      if (auto running = live.on_session(cell, session)) running->discard();
  }
  ~SessionHold() {
    if (!hold_) return;
    live_.remove(*hold_);
    hold_->finish();  // wakes a run waiting to start there ("if_busy": "interrupt")
  }
  SessionHold(const SessionHold&) = delete;
  SessionHold& operator=(const SessionHold&) = delete;

 private:
  LiveRuns& live_;
  std::shared_ptr<LiveRun> hold_;
};

}  // namespace

SessionRecord RunService::visible_session(const std::string& cell, const Principal& who,
                                          const std::string& session) const {
  auto found = sessions_.find(cell, session);
  // A /chat run on a new session writes the session when it ends; until then the
  // session is its live run's.
  if (!found)
    if (auto running = live_.on_session(cell, session); running && !running->is_hold())
      found = SessionRecord{cell, session, running->actor, "", ""};
  if (!found || (!who.admin && found->actor != who.actor))
    throw not_found("session '" + session + "' not found");
  return *found;
}

nlohmann::json RunService::list_sessions(const std::string& cell, const Principal& who,
                                         const std::optional<std::string>& actor,
                                         const PageRequest& page) const {
  return sessions_.list(cell, reading_actor(who, actor), page);
}

nlohmann::json RunService::messages(const std::string& cell, const Principal& who,
                                    const std::string& session, const PageRequest& page) const {
  visible_session(cell, who, session);
  return sessions_.messages(cell, session, page);
}

nlohmann::json RunService::interrupt(const std::string& cell, const Principal& who,
                                     const std::string& session) {
  visible_session(cell, who, session);
  auto running = live_.on_session(cell, session);
  if (!running || running->is_hold()) return {{"interrupted", false}, {"run_id", nullptr}};
  running->cancel();
  // Answer once the run has stored its partial answer, so a read right after sees it. A
  // run whose provider ignores the cancel past the wait is still going: it was asked to
  // stop, and was not interrupted. Nor was one whose answer was whole before the cancel
  // came: it ends end_turn all the same.
  const bool stopped = running->wait_finished(settings_.stop_wait);
  return {{"interrupted", stopped && running->ended_interrupted()}, {"run_id", running->id}};
}

namespace {

std::string session_key(const std::string& cell, const std::string& session) {
  std::string key = cell;
  key += '\0';
  key += session;
  return key;
}

}  // namespace

std::optional<StripedFence::Hold> RunService::hold_session(const std::string& cell,
                                                           const std::string& actor,
                                                           const std::string& session) const {
  StripedFence::Hold held = session_fence_.hold(session_key(cell, session));
  auto found = sessions_.find(cell, session);
  if (!found || found->actor != actor) return std::nullopt;
  return held;
}

void RunService::delete_session(const std::string& cell, const Principal& who,
                                const std::string& session) {
  const SessionRecord seen = visible_session(cell, who, session);
  SessionHold hold(live_, cell, session, settings_.stop_wait);
  StripedFence::Closed closed = session_fence_.close(session_key(cell, session));
  // What other stores keep of the session goes first: should that fail, the session is
  // still there and the DELETE can be sent again. The other way round, a failure would
  // leave the session gone (a retry 404) and its memory kept for good, for a session made
  // again under the id to inherit.
  if (session_deleted_) session_deleted_(cell, session);
  const bool removed = sessions_.remove(cell, session);
  history_.forget(cell, session);
  // A stored session that is gone by now: another deletion got there first. One only a
  // live /chat run held was never stored: it went with its run.
  if (!removed && !seen.created_at.empty()) throw not_found("session '" + session + "' not found");
}

void RunService::discard_cell(const std::string& cell) {
  for (const auto& run : live_.all())
    if (run->cell == cell) run->discard();
}

void RunService::check_run(const std::string& cell, const Principal& who,
                           const std::string& run_id) const {
  // A /chat run is stored only at its end, and its id is known before (session_busy,
  // an interrupt's answer): while it runs, the live run says whose it is.
  if (auto live = live_.find(run_id); live && live->cell == cell) {
    if (who.admin || live->actor == who.actor) return;
    throw not_found("run '" + run_id + "' not found");
  }
  auto run = sessions_.find_run(cell, run_id);
  if (!run || (!who.admin && run->actor != who.actor))
    throw not_found("run '" + run_id + "' not found");
}

RunRecord RunService::visible_run(const std::string& cell, const Principal& who,
                                  const std::string& run_id) const {
  std::optional<RunRecord> run = sessions_.find_run(cell, run_id);
  // A run whose start is not stored yet (StartWrite) is known by its live entry.
  if (auto live = live_.find(run_id); !run && live && live->cell == cell)
    run = RunRecord{live->id, live->cell, live->session_id, live->actor, "", "running",
                    "",       "",         "",               0,           0};
  if (!run || (!who.admin && run->actor != who.actor))
    throw not_found("run '" + run_id + "' not found");
  return std::move(*run);
}

void RunService::follow(const std::string& cell, const Principal& who, const std::string& run_id,
                        int64_t after, RunSink& sink, std::chrono::milliseconds idle) {
  check_run(cell, who, run_id);
  if (auto live = live_.find(run_id)) {
    if (!sink.begin()) return;
    live->follow(
        after,
        [&](const std::string& event, int64_t seq) { return sink.send_numbered(event, seq); },
        [&] { return sink.idle(); }, idle);
    return;
  }
  const std::vector<nlohmann::json> events = sessions_.run_events(run_id, after);
  // Nothing after `after` in a finished run is an empty stream. But a run gone since
  // check_run, or stored as running while no longer live (its session's deletion
  // discarded its end, and takes its row next), is a 404, not a stream without run_start
  // or done.
  if (events.empty()) {
    const std::optional<RunRecord> run = sessions_.find_run(cell, run_id);
    if (!run || run->status == "running") throw not_found("run '" + run_id + "' not found");
  }
  for (const auto& event : events)
    if (!sink.send_numbered(event_text(event), event.value("seq", int64_t{0}))) return;
}

}  // namespace agentrt::core
