// Conversations: a run takes a validated request, resolves the model to its provider,
// assembles the context from the session's history, calls the provider, hands every
// event to a sink as it happens, and stores the run, its events and the new messages.
// One run at a time per session. The service knows nothing of HTTP: server/ supplies
// the sink that writes SSE; /chat answers from how the run ended instead.
#pragma once

#include "core/agents/agent_service.h"
#include "core/auth/principal.h"
#include "core/domain/striped_fence.h"
#include "core/limits/limits.h"
#include "core/providers/provider_registry.h"
#include "core/runs/context_window.h"
#include "core/runs/history_cache.h"
#include "core/runs/live_runs.h"
#include "core/runs/provider_call.h"
#include "core/runs/run_request.h"
#include "core/runs/tool_answers.h"
#include "core/sessions/session_store.h"
#include "core/tools/memory_tools.h"
#include "core/tools/tool_servers.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace agentrt::core {

// Where a run's events go.
class RunSink {
 public:
  virtual ~RunSink() = default;
  // Delivers one event as its JSON text (event_text.h); false when the receiver is
  // gone (the run then stops).
  virtual bool send(const std::string& event) = 0;
  // The same for an event a follower may resume after (GET /runs/{id}/events): its
  // `seq` goes with it, where the receiver has a place for it (an SSE `id:`).
  virtual bool send_numbered(const std::string& event, int64_t seq) {
    (void)seq;
    return send(event);
  }
  // The same for an event with a name of its own (an SSE `event:` line, as OpenAI's
  // Responses stream writes before each `data:`).
  virtual bool send_named(std::string_view name, const std::string& event) {
    (void)name;
    return send(event);
  }
  // Called often while the provider is silent; may send a keep-alive. False when gone.
  virtual bool idle() { return true; }
  // Starts the stream before any event, for a receiver that may wait for the next one;
  // a sink whose start waits for its first event may still fail the request till then.
  virtual bool begin() { return true; }
};

// The sink of a run whose client waits for its end (/chat, /v1's non-streamed answers):
// the events only go to followers and the store; a client that has gone (`client_gone`,
// asked while the provider is silent) stops the run.
class AnswerOnlySink : public RunSink {
 public:
  explicit AnswerOnlySink(const std::function<bool()>& client_gone) : client_gone_(client_gone) {}
  bool send(const std::string&) override { return true; }
  bool idle() override { return !client_gone_ || !client_gone_(); }

 private:
  const std::function<bool()>& client_gone_;
};

// When a run's start (its row, and its session when new) is stored.
enum class StartWrite {
  // While the provider call is under way, its events held back until then (a stream:
  // the upstream's first answer does not wait for a commit, and whoever learns the
  // run's id can look it up).
  with_call,
  // In the same transaction as the run's end (/chat, whose run id nobody knows before
  // the answer).
  with_end,
};

// A run that passed validation and holds its session, ready to execute.
struct PreparedRun {
  std::shared_ptr<LiveRun> live;
  RunRequest request;
  ResolvedModel model;
  RunContext context;
  // The tools offered: the agent's client tools, its server tools, then the request's
  // (docs/tools.md); `routes` says who runs each.
  std::vector<ToolSpec> tools;
  std::vector<ToolRoute> routes;
  int64_t max_steps = 8;  // the request's, else its agent's, else 8
  // A person's word on the calls the session left awaiting approval, which run (or are
  // denied) before the first step.
  std::vector<Approval> approvals;
  // Who the built-in tools act as, and within which memory.
  MemoryToolScope tool_scope;
  // The messages the run makes: each step's answer, and the results of the calls
  // agentrt ran; stored after the request's.
  std::vector<StoredMessage> made;
  // The run's start, stored by execute() as `start_write` says.
  RunRecord start;
  StartWrite start_write = StartWrite::with_call;
  // A stream's deltas are best sent from the provider's own thread, which serves many
  // streams; /chat sends nothing until the end, and its thread, which waits anyway,
  // runs the call itself (measured: 20 µs less per /chat at concurrency 1, no loss at
  // 64).
  CallThread provider_thread = CallThread::plugin;
  // Tells group commit that this run will store its end (write_batcher.h).
  std::optional<WriteBatcher::Coming> coming;
  bool continues = false;  // its session was stored when it began (RunOutcome::continues)
  // Its place among its actor's runs under way, and where its tokens count.
  limits::RunAdmission admission;
};

// How a run ended: what its done (and error) event says, and what /chat answers.
struct RunSummary {
  std::string text;  // the answer, as streamed
  std::string reason;
  // The calls the run leaves pending, in the order the model made them: the client's
  // (reason tool_use), and those awaiting approval with their server's name.
  std::vector<ToolCall> tool_calls;
  struct AwaitingApproval {
    ToolCall call;
    std::string server;
  };
  std::vector<AwaitingApproval> approvals;
  // The provider's own word when `reason` maps it (content_filter ends as end_turn),
  // for the log line; empty otherwise.
  std::string provider_reason;
  int64_t input_tokens = 0, output_tokens = 0;
  bool failed = false;
  std::string error_code, error_message;  // when failed
  uint32_t retry_after_ms = 0;            // when failed, the upstream's hint
  int32_t upstream_status = 0;            // when failed, the upstream's HTTP status if any
};

struct RunSettings {
  CallPolicy call;
  // 32 MiB holds the windows of about 350 sessions of 580 short messages each, or of 64
  // whose messages fill a 128k-token window (512 KB of text).
  size_t history_cache_bytes = size_t{32} << 20;
  // How long an interrupt or a session's deletion waits for its run to stop. A run
  // that has not stopped by then (its provider ignores cancellation) is answered for
  // as interrupted; a deleted session's is discarded (LiveRun::discard).
  std::chrono::milliseconds stop_wait{10'000};
  // A server tool's result is cut here, with a note (limits.max_tool_output_bytes).
  uint64_t max_tool_output_bytes = 256 * 1024;
};

// Which memory a run may see: the acting actor's, in the run's cell and session, the
// agent's namespace, and only these layers.
struct MemoryScope {
  std::string cell, actor, session_id;
  std::optional<std::string> agent_namespace;
  std::vector<std::string> layers;
  // The model's context window: an entry estimated larger can never be in the context,
  // so it need not be read (0: no bound).
  int64_t max_entry_tokens = 0;
};
// The memory items of a scope, in the priority order of context_window.h.
using MemorySource = std::function<std::vector<MemoryItem>(const MemoryScope&)>;

// The layers a run without an agent may see.
const std::vector<std::string>& default_run_layers();

class RunService {
 public:
  // Whether the cell exists, as the incarnation given (Principal::cell_seq) if one is.
  using CellCheck = std::function<bool(const std::string& cell, std::optional<int64_t> seq)>;
  RunService(SessionStore& sessions, ProviderRegistry& providers, AgentService& agents,
             RunSettings settings);
  void set_memory_source(MemorySource source) { memory_source_ = std::move(source); }
  // The tool servers agents' references name, and what runs the built-in tools.
  using BuiltinTools = std::function<ToolResult(const ToolCall&, const MemoryToolScope&)>;
  void set_tools(const ToolServers* servers, BuiltinTools builtin) {
    tool_servers_ = servers;
    builtin_tools_ = std::move(builtin);
  }
  // Asked once a run is live, holding the cell's fence (core/cells/cell_fence.h): a
  // run checked against its cell before the cell's deletion but made live after the
  // deletion discarded the cell's runs would otherwise store into a deleted cell.
  void check_cells_with(CellCheck cell_exists) { cell_exists_ = std::move(cell_exists); }
  // The limits every run is admitted by (core/limits/limits.h) before it is prepared;
  // none: runs are neither limited nor counted.
  void admit_runs_with(limits::Limits* limits) { limits_ = limits; }
  ~RunService();

  // Ends the runs an earlier agentd left running as interrupted (SessionStore::
  // end_abandoned_runs); returns how many. Their deltas were never stored, so the `done`
  // such a run ends with has kRecoveredDoneSeq: past any seq its live stream reached,
  // a client resuming from the last seq it saw (?after=) still gets it.
  static constexpr int64_t kRecoveredDoneSeq = 999'999'999'999;  // the largest `after`
  int64_t end_abandoned_runs();

  // Validates and claims the session: 400, 404, 409 session_busy, 503 — before any
  // event, so a refused request writes nothing. Nothing is stored yet (StartWrite).
  // `body` is the request's JSON text (parse_run_request).
  PreparedRun prepare(const std::string& cell, const Principal& who, std::string_view body,
                      StartWrite start_write = StartWrite::with_call);
  // The same for a body already read.
  PreparedRun prepare(const std::string& cell, const Principal& who, RunRequest request,
                      StartWrite start_write = StartWrite::with_call);
  // Streams run_start, stream_delta..., [error], done into `sink` and stores the run;
  // the request's messages move into the store. Throws, having sent nothing, when the
  // run's start cannot be stored.
  RunSummary execute(PreparedRun& run, RunSink& sink);
  // prepare + execute, answering the chat response as JSON text, or a provider error.
  // `client_gone`, when set, is asked while the provider is silent: a client that has
  // gone stops the run (interrupted, its answer so far stored), so its session is free
  // for the retry it is likely to send, instead of busy until an answer nobody reads.
  std::string chat(const std::string& cell, const Principal& who, std::string_view body);
  std::string chat(const std::string& cell, const Principal& who, RunRequest request,
                   const std::function<bool()>& client_gone = {});

  // POST /sessions/{sid}/interrupt: {"interrupted","run_id"}.
  nlohmann::json interrupt(const std::string& cell, const Principal& who,
                           const std::string& session);
  // 404 unless the run exists in the cell and `who` may see it.
  void check_run(const std::string& cell, const Principal& who, const std::string& run_id) const;
  // The run `who` may see (a response's run): stored, else live (status "running", its
  // model not known yet); 404 otherwise.
  RunRecord visible_run(const std::string& cell, const Principal& who,
                        const std::string& run_id) const;
  // GET /runs/{id}/events: the stored or live events after `after`. A live run's are
  // followed on an open sink; a run gone since check_run is a 404 before the sink opens.
  void follow(const std::string& cell, const Principal& who, const std::string& run_id,
              int64_t after, RunSink& sink, std::chrono::milliseconds idle);
  nlohmann::json list_sessions(const std::string& cell, const Principal& who,
                               const std::optional<std::string>& actor,
                               const PageRequest& page) const;
  nlohmann::json messages(const std::string& cell, const Principal& who, const std::string& session,
                          const PageRequest& page) const;
  // 404 also for all but one of concurrent deletions of the session.
  void delete_session(const std::string& cell, const Principal& who, const std::string& session);
  // The session's fence (striped_fence.h) held while the session is stored as `actor`'s,
  // for a write of another store that names it (a memory entry): its deletion waits for
  // the write and deletes what it wrote, and a write that comes after finds no session.
  // Nothing when there is no such session.
  std::optional<StripedFence::Hold> hold_session(const std::string& cell, const std::string& actor,
                                                 const std::string& session) const;
  // Inside a cell's deleting transaction: its live runs stop and store nothing more.
  void discard_cell(const std::string& cell);

  // Shutdown: stops every live run (they end with reason "interrupted").
  void interrupt_all();
  // The runs under way now (agentrt_runs_live).
  size_t live_count() const { return live_.all().size(); }

  // Drops the cell's sessions from the history cache (a cell cleanup).
  void forget_cell(const std::string& cell) { history_.forget_cell(cell); }

  // Called as a session is deleted, before its own rows go, for what other features
  // keep per session: should the hook fail, the session is still whole, and the DELETE
  // can be sent again.
  void on_session_deleted(std::function<void(const std::string&, const std::string&)> hook) {
    session_deleted_ = std::move(hook);
  }

 private:
  struct SessionOwner {
    std::optional<std::string> actor;  // none: no such session
    bool held = false;                 // from the history cache
    uint64_t deletions_before = 0;     // HistoryCache::deletions() before the lookup
  };
  SessionOwner session_owner(const std::string& cell, const std::string& session) const;
  SessionRecord visible_session(const std::string& cell, const Principal& who,
                                const std::string& session) const;
  // `waited`: the session was busy and its run (or deletion) was waited for, so the
  // session is not what it was when the run was checked. `sees_any_actor`: an admin
  // naming no actor, for whom another actor's session exists; for anyone else a session
  // whose live run is another actor's is not found, as a stored one would not be.
  std::shared_ptr<LiveRun> claim(const std::string& cell, const std::string& session,
                                 const std::string& actor, bool sees_any_actor,
                                 bool interrupt_if_busy, bool& waited);

  friend class RunExecution;  // run_execute.cpp

  RunContext context_for(const std::string& cell, const std::string& actor,
                         const std::string& session_id, const Agent* agent, PreparedRun& run,
                         bool continues);
  // The run's context from its session as `owner` found it; the owner kept for the next.
  void set_context(PreparedRun& run, const std::string& cell, const std::string& actor,
                   const std::string& session_id, const Agent* agent, const SessionOwner& owner);

  SessionStore& sessions_;
  ProviderRegistry& providers_;
  AgentService& agents_;
  MemorySource memory_source_;
  const ToolServers* tool_servers_ = nullptr;
  BuiltinTools builtin_tools_;
  CellCheck cell_exists_;
  limits::Limits* limits_ = nullptr;
  RunSettings settings_;
  LiveRuns live_;
  HistoryCache history_;
  std::function<void(const std::string&, const std::string&)> session_deleted_;
  StripedFence session_fence_;  // keyed by session_key()
};

}  // namespace agentrt::core
