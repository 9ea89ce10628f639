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
#include "core/tools/offered_tools.h"
#include "text/utf8.h"

#include <exception>
#include <functional>
#include <optional>

namespace agentrt::core {
namespace {

constexpr auto kBusyWait = std::chrono::seconds(10);

ErrorKind kind_for(const std::string& code) {
  if (code == "provider_unavailable") return ErrorKind::provider_unavailable;
  if (code == "provider_timeout") return ErrorKind::provider_timeout;
  if (code == "internal") return ErrorKind::internal;
  return ErrorKind::provider_error;
}

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
                                   PreparedRun& run, bool continues) {
  ContextParts parts;
  if (agent) parts.system_prompt = agent->system_prompt;
  // A stateless run's messages are its whole context (RunRequest::stateless).
  const bool stateful = !run.request.stateless;
  if (stateful && run.request.use_memory && memory_source_) {
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
  if (stateful && continues)
    parts.history = history_.recent(sessions_, cell, session_id, run.model.model.context_window);
  if (stateful) {
    const std::vector<ToolCall> pending = pending_calls(parts.history);
    // A pending call of a tool agentrt runs waits for a person's approval; the caller
    // answers the client's.
    check_answers(pending, run.request.messages, [&](const ToolCall& call) {
      const ToolRoute* route = route_of(run.tools, run.routes, call.name);
      return route && route->executor != ToolRoute::Executor::client;
    });
    run.approvals = approvals_in(pending, run.request.messages);
  }
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

// The agent's client tools, its server tools, then the request's; a name two use is
// 400, as is a tool_choice that names no tool offered, or asks for one when none is.
OfferedTools offered_tools(const Agent* agent, const RunRequest& request,
                           const ToolServers* servers) {
  OfferedTools offered;
  if (agent) {
    for (const ToolSpec& spec : agent->tools) offered.add(spec, {}, "agent '" + agent->id + "'");
    add_referenced_tools(offered, servers, agent->tool_refs, agent->memory_layers);
  }
  for (size_t i = 0; i < request.tools.size(); ++i) {
    if (find_tool(offered.specs, request.tools[i].name))
      throw invalid("field 'tools[" + std::to_string(i) + "].name': tool '" +
                    request.tools[i].name + "' is also agent '" + agent->id + "''s");
    offered.add(request.tools[i], {}, "the request");
  }
  if (offered.specs.size() > kMaxTools)
    throw invalid("field 'tools': the run would offer more than " + std::to_string(kMaxTools) +
                  " tools with its agent's");
  const std::optional<ToolChoice>& choice = request.tool_choice;
  if (choice && choice->mode == "tool" && !find_tool(offered.specs, choice->name))
    throw invalid("field 'tool_choice.name': the run offers no tool '" + choice->name + "'");
  if (choice && choice->mode == "required" && offered.specs.empty())
    throw invalid("field 'tool_choice': required, but the run offers no tools");
  return offered;
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
  // First: a run its limits refuse costs a look-up, and takes nothing of anyone's. A
  // refusal below ends the admission with `run`.
  if (limits_) run.admission = limits_->admit_run(who, cell, acting_actor(who, run.request.actor));
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
  OfferedTools offered = offered_tools(agent.get(), run.request, tool_servers_);
  run.tools = std::move(offered.specs);
  run.routes = std::move(offered.routes);
  run.max_steps = run.request.max_steps.value_or(agent && agent->max_steps ? *agent->max_steps : 8);
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
  run.tool_scope = {cell, actor, session_id, agent ? agent->namespace_ : "",
                    agent ? agent->memory_layers : default_run_layers()};
  return run;
}

namespace {

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

// [{"arguments","call_id","name","server"}]: the calls awaiting a person's approval.
void append_approvals(std::string& out, const RunSummary& summary) {
  out += '[';
  for (const RunSummary::AwaitingApproval& waiting : summary.approvals) {
    if (out.back() != '[') out += ',';
    JsonObjectText entry(out);
    entry.string("arguments", waiting.call.arguments)
        .string("call_id", waiting.call.id)
        .string("name", waiting.call.name)
        .string("server", waiting.server)
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
  AnswerOnlySink sink(client_gone);
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
  if (!summary.approvals.empty()) append_approvals(answer.member("approvals"), summary);
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
