#include "core/runs/run_service.h"

#include "core/domain/errors.h"
#include "core/domain/ids.h"
#include "core/domain/json_text.h"
#include "core/log/logger.h"
#include "core/log/request_log.h"
#include "core/runs/context_window.h"
#include "core/runs/event_text.h"
#include "core/runs/held_sink.h"
#include "core/runs/provider_request.h"
#include "core/runs/tool_answers.h"
#include "core/runs/tool_request.h"
#include "text/utf8.h"

#include <exception>
#include <functional>
#include <optional>

namespace agentrt::core {
namespace {

constexpr auto kBusyWait = std::chrono::seconds(10);

// The reason `done` carries for how the provider call ended (docs/openapi.yaml, the
// `done` event). A completed call that made tool calls waits for their results
// (tool_use), whatever the vendor's word; a provider's other words for a finished
// answer (a vendor's content_filter, refusal, pause_turn, and whatever it adds next) end
// the turn; the ones that say a limit cut it are max_tokens.
std::string done_reason(const ProviderResult& result) {
  if (result.end == ProviderResult::End::cancelled) return "interrupted";
  if (result.end == ProviderResult::End::failed) return "error";
  if (!result.tool_calls.empty()) return "tool_use";
  const std::string& word = result.finish_reason;
  if (word == "max_tokens" || word == "length" || word == "model_context_window_exceeded")
    return "max_tokens";
  return "end_turn";
}

// What the done and error events report of a provider call, and /chat answers.
RunSummary summarise(ProviderResult result, const RunContext& context) {
  RunSummary summary;
  summary.reason = done_reason(result);
  if (result.end == ProviderResult::End::completed && result.finish_reason != summary.reason)
    summary.provider_reason = result.finish_reason;
  summary.input_tokens = result.input_tokens.value_or(0);
  if (!result.input_tokens)
    context.each([&](const StoredMessage& m) { summary.input_tokens += estimate_tokens(m); });
  summary.output_tokens =
      result.output_tokens.value_or(static_cast<int64_t>((result.text.size() + 3) / 4));
  summary.failed = result.end == ProviderResult::End::failed;
  summary.error_code = std::move(result.error_code);
  summary.error_message = std::move(result.error_message);
  summary.retry_after_ms = result.retry_after_ms;
  summary.text = std::move(result.text);
  // A call cut off (an interrupt, a failure) leaves nothing pending.
  if (summary.reason == "tool_use") summary.tool_calls = std::move(result.tool_calls);
  return summary;
}

// What a run stores when it ends: its events, the request's messages (moved: the run
// has no use for them any more) and the answer.
// `done`, the last event, is stored with the others before anyone is sent it.
RunOutcome outcome_of(const LiveRun& live, PreparedRun& run, const RunSummary& summary,
                      const std::string& done) {
  RunOutcome outcome{live.id,
                     live.cell,
                     live.session_id,
                     summary.reason,
                     summary.input_tokens,
                     summary.output_tokens,
                     live.events_json(done),
                     std::move(run.request.messages)};
  outcome.continues = run.continues;
  outcome.discarded = &live.discarded();
  if (!summary.text.empty() || !summary.tool_calls.empty())
    outcome.new_messages.push_back(answer_message(summary.text, summary.tool_calls));
  return outcome;
}

ErrorKind kind_for(const std::string& code) {
  if (code == "provider_unavailable") return ErrorKind::provider_unavailable;
  if (code == "provider_timeout") return ErrorKind::provider_timeout;
  if (code == "internal") return ErrorKind::internal;
  return ErrorKind::provider_error;
}

// Removes the run from the live registry however execute() ends.
// Leaves the registry before it says finished: whoever waits for the run to finish so
// as to take its session (if_busy: interrupt) must find the session free when it wakes.
struct LiveGuard {
  LiveRuns& registry;
  LiveRun& run;
  bool removed = false;
  // Frees the run's session for the next run, before its `done` goes out.
  void remove() {
    registry.remove(run);
    removed = true;
  }
  ~LiveGuard() {
    if (!removed) registry.remove(run);
    run.finish();
  }
};

}  // namespace

const std::vector<std::string>& default_run_layers() {
  static const std::vector<std::string> layers = {"about_me", "consensus", "session",
                                                  "environment"};
  return layers;
}

RunService::RunService(SessionStore& sessions, ProviderRegistry& providers, AgentService& agents,
                       RunSettings settings)
    : sessions_(sessions),
      providers_(providers),
      agents_(agents),
      settings_(settings),
      history_(settings.history_cache_bytes) {
  sessions_.on_messages_stored([this](const RunOutcome& outcome, std::vector<StoredMessage>&& m) {
    history_.stored(outcome, std::move(m));
  });
}

RunContext RunService::context_for(const std::string& cell, const std::string& actor,
                                   const std::string& session_id, const Agent* agent,
                                   const PreparedRun& run, bool continues) {
  ContextParts parts;
  if (agent) parts.system_prompt = agent->system_prompt;
  if (run.request.use_memory && memory_source_) {
    MemoryScope scope{cell,
                      actor,
                      session_id,
                      std::nullopt,
                      default_run_layers(),
                      run.model.model.context_window};
    if (agent) {
      scope.agent_namespace = agent->namespace_;
      scope.layers = agent->memory_layers;
    }
    parts.memory = memory_source_(scope);
  }
  if (continues)
    parts.history = history_.recent(sessions_, cell, session_id, run.model.model.context_window);
  check_answers(pending_calls(parts.history), run.request.messages);
  parts.fresh = run.request.messages;
  if (!run.tools.empty())
    parts.tool_tokens = estimate_text_tokens(tools_json(run.tools)) + kFraming;
  return assemble_context(std::move(parts), run.model.model.context_window, run.request.max_tokens);
}

void RunService::set_context(PreparedRun& run, const std::string& cell, const std::string& actor,
                             const std::string& session_id, const Agent* agent,
                             const SessionOwner& owner) {
  run.continues = owner.actor.has_value();
  run.context = context_for(cell, actor, session_id, agent, run, run.continues);
  if (owner.actor && !owner.held)
    history_.remember_owner(cell, session_id, *owner.actor, owner.deletions_before);
}

// From the history cache's entry, which a continued session's runs keep: the row's
// lookup was most of what such a run read from the store once its messages came from
// the cache. Else from the row, for remember_owner once the run has made the entry.
RunService::SessionOwner RunService::session_owner(const std::string& cell,
                                                   const std::string& session) const {
  SessionOwner owner;
  owner.actor = history_.owner(cell, session);
  owner.held = owner.actor.has_value();
  if (owner.held) return owner;
  owner.deletions_before = history_.deletions();
  if (auto found = sessions_.find(cell, session)) owner.actor = std::move(found->actor);
  return owner;
}

int64_t RunService::end_abandoned_runs() {
  return sessions_.end_abandoned_runs([](const SessionStore::AbandonedRun& run) {
    return "[" + run_start_text(run.id, run.session_id, run.model, run.started_at, 1) + "," +
           done_text("interrupted", run.id, 0, 0, kRecoveredDoneSeq) + "]";
  });
}

RunService::~RunService() {
  interrupt_all();
  sessions_.on_messages_stored(nullptr);
}

std::shared_ptr<LiveRun> RunService::claim(const std::string& cell, const std::string& session,
                                           const std::string& actor, bool sees_any_actor,
                                           bool interrupt_if_busy, bool& waited) {
  const std::string run_id = new_id("run");
  waited = false;
  if (auto run = live_.start(run_id, cell, session, actor)) return run;
  // A new session is stored only when its first run is under way (/run) or over
  // (/chat): until then its live run is what says whose it is. Neither its run's id nor
  // a stop is any other actor's.
  auto others = [&](const std::shared_ptr<LiveRun>& running) {
    if (running && !running->is_hold() && running->actor != actor && !sees_any_actor)
      throw not_found("session '" + session + "' not found");
  };
  auto running = live_.on_session(cell, session);
  others(running);
  if (running && running->is_hold() && !interrupt_if_busy)
    throw DomainError(ErrorKind::conflict, "session_busy",
                      "session '" + session + "' is being deleted; send it again once it is");
  if (!interrupt_if_busy)
    throw DomainError(ErrorKind::conflict, "session_busy",
                      "session '" + session + "' is running " + (running ? running->id : "a run") +
                          "; wait for it, interrupt it, or send \"if_busy\":\"interrupt\"");
  // Whoever has the session is stopped and waited for; one that took it meanwhile (two
  // requests interrupting at once) is stopped in turn, so the last to ask runs. A
  // deletion's hold ends by itself and is waited for alike, after which the run starts
  // on the session anew.
  waited = true;
  const auto give_up = std::chrono::steady_clock::now() + kBusyWait;
  for (;;) {
    if (running) {
      running->cancel();
      running->wait_finished(std::chrono::duration_cast<std::chrono::milliseconds>(
          give_up - std::chrono::steady_clock::now()));
    }
    if (auto run = live_.start(run_id, cell, session, actor)) return run;
    if (std::chrono::steady_clock::now() >= give_up) break;
    running = live_.on_session(cell, session);
    others(running);
  }
  throw DomainError(ErrorKind::conflict, "session_busy", "session '" + session + "' is still busy");
}

namespace {

// The agent's tools, then the request's; a name both use is 400, as is a tool_choice
// that names no tool offered, or asks for one when none is.
std::vector<ToolSpec> offered_tools(const Agent* agent, const RunRequest& request) {
  std::vector<ToolSpec> tools;
  if (agent) tools = agent->tools;
  for (size_t i = 0; i < request.tools.size(); ++i) {
    if (find_tool(tools, request.tools[i].name))
      throw invalid("field 'tools[" + std::to_string(i) + "].name': tool '" +
                    request.tools[i].name + "' is also agent '" + agent->id + "''s");
    tools.push_back(request.tools[i]);
  }
  if (tools.size() > kMaxTools)
    throw invalid("field 'tools': the run would offer more than " + std::to_string(kMaxTools) +
                  " tools with its agent's");
  const std::optional<ToolChoice>& choice = request.tool_choice;
  if (choice && choice->mode == "tool" && !find_tool(tools, choice->name))
    throw invalid("field 'tool_choice.name': the run offers no tool '" + choice->name + "'");
  if (choice && choice->mode == "required" && tools.empty())
    throw invalid("field 'tool_choice': required, but the run offers no tools");
  return tools;
}

}  // namespace

PreparedRun RunService::prepare(const std::string& cell, const Principal& who,
                                std::string_view body, StartWrite start_write) {
  return prepare(cell, who, parse_run_request(body), start_write);
}

PreparedRun RunService::prepare(const std::string& cell, const Principal& who, RunRequest request,
                                StartWrite start_write) {
  PreparedRun run;
  run.request = std::move(request);
  std::shared_ptr<const Agent> agent;
  if (run.request.agent_id) {
    agent = agents_.find(cell, *run.request.agent_id);
    if (!agent) throw invalid("field 'agent_id' names no agent in this cell");
    if (run.request.model.empty()) run.request.model = agent->model;
    if (run.request.model.empty())
      throw invalid("field 'model' is required: agent '" + agent->id + "' has no model");
  }
  auto model = providers_.resolve(run.request.model);
  if (!model) throw invalid("field 'model': no provider offers model '" + run.request.model + "'");
  if (!model->instance)
    throw DomainError(ErrorKind::provider_unavailable,
                      "the provider of model '" + run.request.model + "' is not available");
  run.model = *model;
  run.tools = offered_tools(agent.get(), run.request);
  check_model_accepts(run.request, run.model.model, run.tools);

  std::string actor = acting_actor(who, run.request.actor);
  std::string session_id = run.request.session_id.value_or(new_id("ses"));
  // A session id we just made up cannot name a stored session.
  SessionOwner owner;
  if (run.request.session_id) owner = session_owner(cell, session_id);
  if (owner.actor && *owner.actor != actor) {
    if (!who.admin || run.request.actor) throw not_found("session '" + session_id + "' not found");
    actor = *owner.actor;  // an admin naming no actor continues the owner's session
  }
  // Assembled before the claim, so that a request refused for its context interrupts
  // nothing; again after it when the claim waited: the run it interrupted stored its
  // turn (or a deletion removed the session) meanwhile.
  set_context(run, cell, actor, session_id, agent.get(), owner);
  bool waited = false;
  run.live = claim(cell, session_id, actor, who.admin && !run.request.actor,
                   run.request.interrupt_if_busy, waited);
  try {
    if (cell_exists_ && !cell_exists_(cell, who.cell_seq))
      throw not_found("cell '" + cell + "' not found");
    if (waited) {
      owner = session_owner(cell, session_id);
      if (owner.actor && *owner.actor != actor)  // deleted, and made again by another actor
        throw not_found("session '" + session_id + "' not found");
      set_context(run, cell, actor, session_id, agent.get(), owner);
    }
  } catch (...) {
    live_.remove(*run.live);
    run.live->finish();
    throw;
  }
  run.coming.emplace(sessions_.run_coming());
  run.start =
      RunRecord{run.live->id,        cell, session_id, actor, run.request.model, "running", "",
                utc_timestamp_now(), "",   0,          0};
  run.start_write = start_write;
  return run;
}

namespace {

// Stores a stream's start once, at the first of: the provider call under way (the
// `meanwhile` of call_provider), or the call's end (it never started). Events stay held
// until then; a start that cannot be stored cancels the call and fails the request.
class StartWhileCalling {
 public:
  StartWhileCalling(SessionStore& sessions, const RunRecord& start, HeldSink& held, LiveRun& live)
      : sessions_(sessions), start_(start), held_(held), live_(live) {}

  void operator()() noexcept {
    if (done_) return;
    done_ = true;
    try {
      sessions_.start_run(start_, &live_.discarded());
      held_.open();
    } catch (...) {
      failure_ = std::current_exception();
      live_.cancel();
    }
  }
  bool started() const { return done_; }
  // After the call: stores the start if that has not happened; rethrows its failure.
  void finish() {
    (*this)();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  SessionStore& sessions_;
  const RunRecord& start_;
  HeldSink& held_;
  LiveRun& live_;
  bool done_ = false;  // only ever touched by the run's own thread
  std::exception_ptr failure_;
};

// `done` says the run ended: a client that acts on it (its next turn on the session, a
// read of the messages) must find the run stored and the session free. So it is stored
// first, then the session let go, and only then sent to anyone.
template <class Deliver>
void store_then_end(SessionStore& sessions, PreparedRun& run, const RunSummary& summary,
                    const RunRecord* start, LiveGuard& guard, Deliver& deliver) {
  LiveRun& live = *run.live;
  std::string done = done_text(summary.reason, live.id, summary.input_tokens, summary.output_tokens,
                               live.next_seq());
  try {
    sessions.finish_run(outcome_of(live, run, summary, done), start);
  } catch (...) {
    // Its stream still ends as every stream does, rather than with no event at all,
    // though neither event is stored: nothing of the run's end is. A run whose start is
    // stored keeps that end for followers and for the next write that can store it, so
    // that its row does not say running until the next start.
    deliver(live.append_text([&](int64_t seq) {
      return error_event_text("internal", "the run could not be stored", seq);
    }));
    deliver(live.append_text([&](int64_t seq) {
      return done_text("error", live.id, summary.input_tokens, summary.output_tokens, seq);
    }));
    if (start == nullptr)
      sessions.keep_unstored_end({live.id, "error", live.events_json(), utc_timestamp_now(),
                                  summary.input_tokens, summary.output_tokens});
    throw;
  }
  if (summary.reason == "interrupted") live.end_interrupted();
  guard.remove();
  deliver(live.append_text([&](int64_t) { return std::move(done); }));
}

// A run that ends unstored, its own client answered with an error instead of a stream,
// was seen live by followers (GET /runs/{id}/events) from its run_start on. Their stream
// ends as every stream does, with error and done, rather than closing after run_start.
void end_for_followers(LiveRun& live, std::string_view code, std::string_view message) {
  live.append_text([&](int64_t seq) { return error_event_text(code, message, seq); });
  live.append_text([&](int64_t seq) { return done_text("error", live.id, 0, 0, seq); });
}

// Refused by the provider before anything was sent: nothing reached the client and
// nothing is stored, so the request is refused as any invalid one is, and does not stay
// in the session to fail every later run.
[[noreturn]] void refuse(const ProviderResult& result, const PreparedRun& run) {
  std::string_view why = result.error_message;
  if (why.rfind("request: ", 0) == 0) why.remove_prefix(9);  // the bundled plugins' prefix
  const std::string message =
      "model '" + run.model.model.id + "' cannot take this request: " + std::string(why);
  end_for_followers(*run.live, "invalid_request", message);
  throw invalid(message);
}

// What the run's provider is sent (provider_request.h).
std::string request_of(const PreparedRun& run) {
  const ModelInfo& model = run.model.model;
  const ToolOffer offer{&run.tools, run.request.tool_choice, model.supports_tools};
  return provider_request(run.context, model.id, run.request.max_tokens, run.request.temperature,
                          model.supports_vision, offer);
}

// On the line of the request that ran it (request_log.h), else a line of its own.
void log_finished(const std::string& run_id, const RunSummary& summary, int attempts) {
  LogFields own;
  LogFields* request_line = RequestLogFields::current();
  LogFields& line = request_line ? *request_line : own;
  line.text("run_id", run_id).text("reason", summary.reason);
  if (!summary.provider_reason.empty()) line.text("finish_reason", summary.provider_reason);
  line.integer("attempts", attempts)
      .integer("input_tokens", summary.input_tokens)
      .integer("output_tokens", summary.output_tokens);
  // Why it failed goes in the log too: told to the client alone, it would leave an
  // operator whose key file went missing with 502s and no reason. Plugins' messages never
  // carry a key.
  if (summary.failed) {
    constexpr size_t kMessageBytes = 300;
    line.text("error_code", summary.error_code)
        .text("error", text::utf8_prefix(summary.error_message, kMessageBytes));
  }
  if (!request_line) log_info("run finished", own);
}

}  // namespace

RunSummary RunService::execute(PreparedRun& run, RunSink& receiver) {
  LiveRun& live = *run.live;
  LiveGuard guard{live_, live};
  const bool start_with_call = run.start_write == StartWrite::with_call;
  HeldSink held(receiver);
  RunSink& sink = start_with_call ? static_cast<RunSink&>(held) : receiver;
  std::optional<StartWhileCalling> store_start;
  std::function<void()> meanwhile;
  if (start_with_call) {
    store_start.emplace(sessions_, run.start, held, live);
    meanwhile = [&store_start] { (*store_start)(); };
  }
  bool receiver_gone = false;
  auto deliver = [&](const std::string& event) {
    if (!receiver_gone && !sink.send(event)) receiver_gone = true;
  };
  const std::string started_at = utc_timestamp_now();
  deliver(live.append_text([&](int64_t seq) {
    return run_start_text(live.id, live.session_id, run.model.model.id, started_at, seq);
  }));

  const std::function<bool(const ToolCall&)> on_tool_call = [&](const ToolCall& call) {
    deliver(live.append_text([&](int64_t seq) {
      return tool_call_text(call.id, call.name, call.arguments, "client", seq);
    }));
    return !receiver_gone && !live.cancelled();
  };
  ProviderResult result = call_provider(
      *run.model.instance, request_of(run), settings_.call,
      [&](std::string_view text) {
        deliver(live.append_delta(text));
        return !receiver_gone && !live.cancelled();
      },
      [&] {
        if (!receiver_gone && !sink.idle()) receiver_gone = true;
        return receiver_gone || live.cancelled();
      },
      &live.waker(), run.provider_thread, store_start ? &meanwhile : nullptr, &on_tool_call);
  if (result.refused && !(store_start && store_start->started())) refuse(result, run);
  if (store_start) {
    try {
      store_start->finish();
    } catch (...) {
      end_for_followers(live, "internal", "the run could not be stored");
      throw;
    }
  }

  const int attempts = result.attempts;
  RunSummary summary = summarise(std::move(result), run.context);
  if (summary.failed)
    deliver(live.append_text([&](int64_t seq) {
      return error_event_text(summary.error_code, summary.error_message, seq);
    }));
  store_then_end(sessions_, run, summary, start_with_call ? nullptr : &run.start, guard, deliver);
  if (Logger::enabled(LogLevel::info)) log_finished(live.id, summary, attempts);
  return summary;
}

namespace {

// /chat answers from execute()'s summary; the events only go to followers and the store.
class ChatSink : public RunSink {
 public:
  explicit ChatSink(const std::function<bool()>& client_gone) : client_gone_(client_gone) {}
  bool send(const std::string&) override { return true; }
  bool idle() override { return !client_gone_ || !client_gone_(); }

 private:
  const std::function<bool()>& client_gone_;
};

// [{"arguments","call_id","executor","name"}]: the calls /chat's client runs.
void append_tool_calls(std::string& out, const RunSummary& summary) {
  out += '[';
  for (const ToolCall& call : summary.tool_calls) {
    if (out.back() != '[') out += ',';
    JsonObjectText entry(out);
    entry.string("arguments", call.arguments)
        .string("call_id", call.id)
        .string("executor", "client")
        .string("name", call.name)
        .close();
  }
  out += ']';
}

}  // namespace

std::string RunService::chat(const std::string& cell, const Principal& who, std::string_view body) {
  return chat(cell, who, parse_run_request(body));
}

std::string RunService::chat(const std::string& cell, const Principal& who, RunRequest request,
                             const std::function<bool()>& client_gone) {
  PreparedRun run = prepare(cell, who, std::move(request), StartWrite::with_end);
  run.provider_thread = CallThread::caller;
  ChatSink sink(client_gone);
  RunSummary summary = execute(run, sink);
  if (summary.failed)
    throw DomainError(kind_for(summary.error_code),
                      summary.error_message + " (run " + run.live->id + ")")
        .with_retry_after((int64_t{summary.retry_after_ms} + 999) / 1000);
  std::string text;
  text.reserve(summary.text.size() + 192);
  JsonObjectText answer(text);
  answer.string("model", run.model.model.id)
      .string("reason", summary.reason)
      .string("response", summary.text)
      .string("run_id", run.live->id)
      .string("session_id", run.live->session_id);
  if (!summary.tool_calls.empty()) append_tool_calls(answer.member("tool_calls"), summary);
  JsonObjectText usage(answer.member("usage"));
  usage.integer("input_tokens", summary.input_tokens)
      .integer("output_tokens", summary.output_tokens)
      .close();
  answer.close();
  return text;
}

void RunService::interrupt_all() {
  for (const auto& run : live_.all()) run->cancel();
}

}  // namespace agentrt::core
