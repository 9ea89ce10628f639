// Sessions, their messages, and runs with their events, in the state store. Every
// statement is scoped by cell. Access rules (who may see which session) are the
// callers'; this layer only reads and writes.
#pragma once

#include "core/domain/paging.h"
#include "core/domain/shared_text.h"
#include "core/sessions/unstored_ends.h"
#include "core/store/state_store.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

struct SessionRecord {
  std::string cell, id, actor, created_at, updated_at;
};
nlohmann::json to_json(const SessionRecord& session);

struct StoredMessage {
  std::string role;
  // The content as the store keeps it: the JSON text of an array of parts,
  // [{"text":"...","type":"text"},{"type":"image_url","url":"..."}] (keys sorted, as
  // nlohmann's dump writes them). It goes upstream as it is, and is shared by the
  // history cache and every run's context that holds the message.
  SharedText content_text = {};
  // The estimate (core/runs/context_window.h), set when the message is made or read.
  int64_t tokens = -1;
  int64_t seq = 0;  // its place in the store, when read from it
  // Set with `tokens`: whether it holds an image part, which a model without vision is
  // not sent, and whether it holds tool parts (tool_call, tool_result, tool_approval),
  // which a model without tools is sent as text.
  bool has_image = false;
  bool has_tool_parts = false;
};

struct RunRecord {
  std::string id, cell, session_id, actor, model, status, reason, started_at, ended_at;
  int64_t input_tokens = 0, output_tokens = 0;
};

// What a finished run writes, in one transaction.
struct RunOutcome {
  std::string run_id, cell, session_id, reason;
  int64_t input_tokens = 0, output_tokens = 0;
  std::string events_json = "[]";           // the run's events, one JSON array
  std::vector<StoredMessage> new_messages;  // the request's, then the answer's
  // The session existed when the run began, so these messages follow those it held
  // then; false for a run that began its session, maybe under the id of a deleted one.
  bool continues = false;
  // When set and true inside the write, nothing is stored (LiveRun::discarded).
  const std::atomic<bool>* discarded = nullptr;
};

class SessionStore {
 public:
  explicit SessionStore(StateStore& store) : store_(store) {}

  std::optional<SessionRecord> find(const std::string& cell, const std::string& id) const;
  // Records a starting run, creating its session (owned by the run's actor) unless it
  // exists: one transaction; nothing when `discarded` is true inside it.
  void start_run(const RunRecord& run, const std::atomic<bool>* discarded = nullptr);
  // Runs an earlier agentd left running (killed, or the machine stopped): ended now as
  // interrupted, each with the events `events` gives it, so that their replay ends and
  // their status is final. Only for the data dir's owner, which nobody else serves.
  // Returns how many.
  struct AbandonedRun {
    std::string id, session_id, model, started_at;
  };
  int64_t end_abandoned_runs(const std::function<std::string(const AbandonedRun&)>& events);
  // Sessions of `actor` (all actors when none), newest first.
  nlohmann::json list(const std::string& cell, const std::optional<std::string>& actor,
                      const PageRequest& page) const;
  // The statement list() runs (binding ?2 only with an actor); for the test of its plan.
  // A whole cell's list first walks back the newest kCellScanRows rows of the table.
  static std::string list_sql(bool by_actor);
  static constexpr int64_t kCellScanRows = 4096;
  std::vector<StoredMessage> history(const std::string& cell, const std::string& session) const;
  // The session's messages newest first, as stored (role, content_text and seq), each
  // handed to `take` until it returns false.
  void history_newest_first(const std::string& cell, const std::string& session,
                            const std::function<bool(StoredMessage&&)>& take) const;
  // The session's messages from the one stored as `seq` on, oldest first, as
  // history_newest_first gives them; nullopt when that message is no longer the
  // session's (the session was deleted since, and maybe made anew under its id). One
  // statement, so one snapshot of the session.
  std::optional<std::vector<StoredMessage>> history_from(const std::string& cell,
                                                         const std::string& session,
                                                         int64_t seq) const;
  // Messages oldest first, paged.
  nlohmann::json messages(const std::string& cell, const std::string& session,
                          const PageRequest& page) const;
  // Removes the session with its messages, runs and events. False when it did not exist.
  bool remove(const std::string& cell, const std::string& id);
  // Everything of a cell, inside the cell-deleting transaction.
  static void remove_cell(Connection& db, const std::string& cell);

  // Stores the run's result; with `start`, first what start_run would have (a run
  // written only at its end), all in one transaction. Once it is committed, hands the
  // messages it stored to the listener, if any. Stores nothing, and tells no listener,
  // when the outcome is discarded.
  void finish_run(const RunOutcome& outcome, const RunRecord* start = nullptr);
  // Given each committed finish_run's outcome and, when the outcome continues its
  // session, its messages, oldest first, as history_from reads them (role,
  // content_text, seq). finish_run is the only statement that adds messages, so a
  // listener sees every message this process stores. Set before any run, and unset
  // (nullptr) before the listener goes.
  using MessagesStored =
      std::function<void(const RunOutcome& outcome, std::vector<StoredMessage>&& messages)>;
  void on_messages_stored(MessagesStored listener) { messages_stored_ = std::move(listener); }
  // Held by a run from its start until it has stored its end (StateStore::writer_coming).
  WriteBatcher::Coming run_coming() { return store_.writer_coming(); }
  std::optional<RunRecord> find_run(const std::string& cell, const std::string& run_id) const;
  // A run's events after `after`: those of a kept end (keep_unstored_end) as its client
  // was sent them; else as stored.
  std::vector<nlohmann::json> run_events(const std::string& run_id, int64_t after) const;
  // The end of a run whose start was stored and whose finish_run failed, as its client
  // was sent it: kept, and stored by the next start_run or finish_run that succeeds.
  void keep_unstored_end(UnstoredEnds::End end) { unstored_.keep(std::move(end)); }

 private:
  StateStore& store_;
  MessagesStored messages_stored_;
  mutable UnstoredEnds unstored_;
};

}  // namespace agentrt::core
