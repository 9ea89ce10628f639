#include "core/runs/run_service.h"

#include "core/domain/errors.h"
#include "core/domain/ids.h"
#include "core/log/logger.h"
#include "core/runs/context_window.h"

namespace agentrt::core {
namespace {

constexpr auto kBusyWait = std::chrono::seconds(10);

nlohmann::json provider_request(const PreparedRun& run) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : run.context) messages.push_back({{"role", m.role}, {"content", m.content}});
  nlohmann::json request = {{"model", run.model.model.id}, {"messages", messages}};
  if (run.request.max_tokens) request["max_tokens"] = *run.request.max_tokens;
  if (run.request.temperature) request["temperature"] = *run.request.temperature;
  return request;
}

// The reason `done` carries for how the provider call ended.
std::string done_reason(const ProviderResult& result) {
  if (result.end == ProviderResult::End::cancelled) return "interrupted";
  if (result.end == ProviderResult::End::failed) return "error";
  return result.finish_reason == "length" ? "max_tokens" : result.finish_reason;
}

ErrorKind kind_for(const std::string& code) {
  if (code == "provider_unavailable") return ErrorKind::provider_unavailable;
  if (code == "provider_timeout") return ErrorKind::provider_timeout;
  if (code == "internal") return ErrorKind::internal;
  return ErrorKind::provider_error;
}

// Removes the run from the live registry however execute() ends.
struct LiveGuard {
  LiveRuns& registry;
  LiveRun& run;
  ~LiveGuard() {
    run.finish();
    registry.remove(run);
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
    : sessions_(sessions), providers_(providers), agents_(agents), settings_(settings) {}

std::vector<StoredMessage> RunService::context_for(const std::string& cell,
                                                   const std::string& actor,
                                                   const std::string& session_id,
                                                   const std::optional<Agent>& agent,
                                                   const PreparedRun& run, bool continues) {
  ContextParts parts;
  if (agent) parts.system_prompt = agent->system_prompt;
  if (run.request.use_memory && memory_source_) {
    MemoryScope scope{cell, actor, session_id, std::nullopt, default_run_layers()};
    if (agent) {
      scope.agent_namespace = agent->namespace_;
      scope.layers = agent->memory_layers;
    }
    parts.memory = memory_source_(scope);
  }
  if (continues) parts.history = sessions_.history(cell, session_id);
  parts.fresh = run.request.messages;
  return assemble_context(parts, run.model.model.context_window, run.request.max_tokens);
}

RunService::~RunService() {
  interrupt_all();
}

std::shared_ptr<LiveRun> RunService::claim(const std::string& cell, const std::string& session,
                                           const std::string& actor, bool interrupt_if_busy) {
  const std::string run_id = new_id("run");
  if (auto run = live_.start(run_id, cell, session, actor)) return run;
  auto running = live_.on_session(cell, session);
  if (!interrupt_if_busy)
    throw DomainError(ErrorKind::conflict, "session_busy",
                      "session '" + session + "' is running " + (running ? running->id : "a run") +
                          "; wait for it, interrupt it, or send \"if_busy\":\"interrupt\"");
  if (running) {
    running->cancel();
    running->wait_finished(kBusyWait);
  }
  if (auto run = live_.start(run_id, cell, session, actor)) return run;
  throw DomainError(ErrorKind::conflict, "session_busy", "session '" + session + "' is still busy");
}

PreparedRun RunService::prepare(const std::string& cell, const Principal& who,
                                const nlohmann::json& body, bool write_start_at_end) {
  PreparedRun run;
  run.request = parse_run_request(body);
  std::optional<Agent> agent;
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
  check_model_accepts(run.request, run.model.model);

  std::string actor = acting_actor(who, run.request.actor);
  std::string session_id = run.request.session_id.value_or(new_id("ses"));
  // A session id we just made up cannot name a stored session.
  std::optional<SessionRecord> existing;
  if (run.request.session_id) existing = sessions_.find(cell, session_id);
  if (existing && existing->actor != actor) {
    if (!who.admin || run.request.actor) throw not_found("session '" + session_id + "' not found");
    actor = existing->actor;  // an admin naming no actor continues the owner's session
  }
  run.context = context_for(cell, actor, session_id, agent, run, existing.has_value());
  run.live = claim(cell, session_id, actor, run.request.interrupt_if_busy);
  RunRecord start{run.live->id,        cell, session_id, actor, run.request.model, "running", "",
                  utc_timestamp_now(), "",   0,          0};
  if (write_start_at_end) {
    run.unwritten_start = std::move(start);
    return run;
  }
  try {
    sessions_.start_run(start);
  } catch (...) {
    live_.remove(*run.live);
    throw;
  }
  return run;
}

void RunService::execute(PreparedRun& run, RunSink& sink) {
  LiveRun& live = *run.live;
  LiveGuard guard{live_, live};
  bool receiver_gone = false;
  auto deliver = [&](nlohmann::json event) {
    event = live.append(std::move(event));
    if (!receiver_gone && !sink.send(event)) receiver_gone = true;
    return event;
  };
  deliver({{"type", "run_start"},
           {"run_id", live.id},
           {"session_id", live.session_id},
           {"model", run.model.model.id},
           {"timestamp", utc_timestamp_now()}});

  ProviderResult result = call_provider(
      *run.model.instance, provider_request(run).dump(), settings_.retry,
      [&](std::string_view text) {
        deliver({{"type", "stream_delta"}, {"content", std::string(text)}});
        return !receiver_gone && !live.cancelled();
      },
      [&] {
        if (!receiver_gone && !sink.idle()) receiver_gone = true;
        return receiver_gone || live.cancelled();
      },
      &live.waker());

  int64_t input = result.input_tokens.value_or(0), output = result.output_tokens.value_or(0);
  if (!result.input_tokens)
    for (const auto& m : run.context) input += estimate_tokens(m);
  if (!result.output_tokens) output = static_cast<int64_t>((result.text.size() + 3) / 4);
  if (result.end == ProviderResult::End::failed)
    deliver({{"type", "error"}, {"code", result.error_code}, {"message", result.error_message}});
  const std::string reason = done_reason(result);
  deliver({{"type", "done"},
           {"reason", reason},
           {"run_id", live.id},
           {"usage", {{"input_tokens", input}, {"output_tokens", output}}}});

  RunOutcome outcome{live.id, live.cell, live.session_id, reason,
                     input,   output,    live.events_json(), run.request.messages};
  if (!result.text.empty())
    outcome.new_messages.push_back(
        {"assistant", nlohmann::json::array({{{"type", "text"}, {"text", result.text}}})});
  sessions_.finish_run(outcome, run.unwritten_start ? &*run.unwritten_start : nullptr);
  log_info("run finished", {{"run_id", live.id},
                            {"reason", reason},
                            {"attempts", result.attempts},
                            {"input_tokens", input},
                            {"output_tokens", output}});
}

namespace {

// Collects a run for /chat.
class CollectingSink : public RunSink {
 public:
  bool send(const nlohmann::json& event) override {
    // Called once per delta: compare in place rather than copy fields out.
    const auto& type = event.at("type").get_ref<const std::string&>();
    if (type == "stream_delta")
      text += event.at("content").get_ref<const std::string&>();
    else if (type == "error")
      error = event;
    else if (type == "done")
      done = event;
    return true;
  }
  std::string text;
  nlohmann::json error, done;
};

}  // namespace

nlohmann::json RunService::chat(const std::string& cell, const Principal& who,
                                const nlohmann::json& body) {
  PreparedRun run = prepare(cell, who, body, /*write_start_at_end=*/true);
  CollectingSink sink;
  execute(run, sink);
  if (sink.error.is_object()) {
    const std::string code = sink.error.value("code", "provider_error");
    throw DomainError(kind_for(code), sink.error.value("message", "the provider failed") +
                                          " (run " + run.live->id + ")");
  }
  return {{"response", sink.text},
          {"run_id", run.live->id},
          {"model", run.model.model.id},
          {"usage", sink.done.value("usage", nlohmann::json::object())},
          {"session_id", run.live->session_id},
          {"reason", sink.done.value("reason", "end_turn")}};
}

void RunService::interrupt_all() {
  for (const auto& run : live_.all()) run->cancel();
}

}  // namespace agentrt::core
