// RunService::execute: a run's steps (docs/tools.md). Each step is one provider call;
// after a step whose calls agentrt runs itself, it runs them and calls the model again,
// until the model answers, the caller must run a tool, a person must approve a call, or
// the run reaches its max_steps. Everything a step says goes to the run's sink as it
// happens, and the run is stored once, at its end (its start earlier: StartWrite).
#include "core/runs/run_service.h"

#include "core/domain/errors.h"
#include "core/log/logger.h"
#include "core/log/request_log.h"
#include "core/metrics/request_timing.h"
#include "core/runs/event_text.h"
#include "core/runs/held_sink.h"
#include "core/runs/provider_request.h"
#include "core/runs/run_metrics.h"
#include "core/runs/tool_answers.h"
#include "core/runs/tool_step.h"
#include "text/utf8.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>

namespace agentrt::core {
namespace {

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
  summary.upstream_status = result.upstream_status;
  summary.text = std::move(result.text);
  // A call cut off (an interrupt, a failure) leaves nothing pending.
  if (summary.reason == "tool_use") summary.tool_calls = std::move(result.tool_calls);
  return summary;
}

// What a run stores when it ends: its events, the request's messages (moved: the run
// has no use for them any more), then its own: each step's answer and tool results.
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
  for (StoredMessage& message : run.made) outcome.new_messages.push_back(std::move(message));
  return outcome;
}

// Removes the run from the live registry however execute() ends, and ends its place
// among its actor's runs under way (core/limits/run_admission.h) with it.
// Leaves the registry before it says finished: whoever waits for the run to finish so
// as to take its session (if_busy: interrupt) must find the session free when it wakes.
struct LiveGuard {
  LiveRuns& registry;
  LiveRun& run;
  limits::RunAdmission& admission;
  bool removed = false;
  // Frees the run's session, and its actor's place, for the next run, before its `done`
  // goes out.
  void remove() {
    registry.remove(run);
    admission.end();
    removed = true;
  }
  ~LiveGuard() {
    if (!removed) remove();
    run.finish();
  }
};

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
  // Spent upstream whether or not the end can be stored. And its actor may begin another
  // run from here on: all this one still does is store itself, and whoever learns of its
  // end (its done, its stored row) must find its place free.
  run.admission.count_tokens(summary.input_tokens + summary.output_tokens);
  run.admission.end();
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
  const bool takes_generation =
      run.model.instance->plugin().abi_minor() >= kGenerationOptionsAbiMinor;
  return provider_request(run.context, model.id, run.request.max_tokens, run.request.temperature,
                          model.supports_vision, offer,
                          takes_generation ? &run.request.generation : nullptr);
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

// One run's execution: its steps, the tools they call, and its end.
class RunExecution {
 public:
  RunExecution(RunService& service, PreparedRun& run, RunSink& receiver)
      : service_(service),
        run_(run),
        live_(*run.live),
        guard_{service.live_, live_, run.admission},
        held_(receiver),
        start_with_call_(run.start_write == StartWrite::with_call),
        sink_(start_with_call_ ? static_cast<RunSink&>(held_) : receiver) {
    if (start_with_call_) {
      store_start_.emplace(service.sessions_, run.start, held_, live_);
      meanwhile_ = [this] { (*store_start_)(); };
    }
    router_.specs = &run.tools;
    router_.routes = &run.routes;
    router_.max_output_bytes = service.settings_.max_tool_output_bytes;
    if (service.builtin_tools_)
      router_.builtin = [this](const ToolCall& call) {
        return service_.builtin_tools_(call, run_.tool_scope);
      };
  }

  RunSummary execute() {
    const std::string started_at = utc_timestamp_now();
    deliver(live_.append_text([&](int64_t seq) {
      return run_start_text(live_.id, live_.session_id, run_.model.model.id, started_at, seq);
    }));
    bool go_on = run_.approvals.empty() || answer_approvals();
    for (int64_t step = 1; go_on; ++step) go_on = take_step(step);
    if (summary_.failed)
      deliver(live_.append_text([&](int64_t seq) {
        return error_event_text(summary_.error_code, summary_.error_message, seq);
      }));
    const bool start_stored = start_with_call_ || started_early_;
    auto send = [this](const std::string& event) { deliver(event); };
    store_then_end(service_.sessions_, run_, summary_, start_stored ? nullptr : &run_.start, guard_,
                   send);
    if (Logger::enabled(LogLevel::info)) log_finished(live_.id, summary_, attempts_);
    return std::move(summary_);
  }

 private:
  void deliver(const std::string& event) {
    if (!receiver_gone_ && !sink_.send(event)) receiver_gone_ = true;
  }

  // Polled while the provider or a tool is silent.
  bool stopped() {
    if (!receiver_gone_ && !sink_.idle()) receiver_gone_ = true;
    return receiver_gone_ || live_.cancelled();
  }

  // The run's start, stored before anything runs a tool: a tool's effects (a memory
  // entry of the session) need the run's session stored, and a run whose tools ran is
  // never refused as though nothing happened.
  void store_start_now() {
    if (start_stored()) return;
    if (store_start_) {
      finish_start();
      return;
    }
    service_.sessions_.start_run(run_.start, &live_.discarded());
    started_early_ = true;
  }
  bool start_stored() const { return started_early_ || (store_start_ && store_start_->started()); }

  void finish_start() {
    try {
      store_start_->finish();
    } catch (...) {
      end_for_followers(live_, "internal", "the run could not be stored");
      throw;
    }
  }

  ProviderResult call_model() {
    const std::string request = request_of(run_);  // agentd's work, before the call's time
    metrics::ProviderCallTimer timer(run_.model.provider, run_.model.model.id);
    const std::function<bool(const ToolCall&)> on_tool_call = [&](const ToolCall& call) {
      timer.answered();
      const char* executor = router_.client_runs(call) ? "client" : "server";
      deliver(live_.append_text([&](int64_t seq) {
        return tool_call_text(call.id, call.name, call.arguments, executor, seq);
      }));
      return !receiver_gone_ && !live_.cancelled();
    };
    const bool first = !start_stored();
    return call_provider(
        *run_.model.instance, request, service_.settings_.call,
        [&](std::string_view text) {
          timer.answered();
          deliver(live_.append_delta(text));
          return !receiver_gone_ && !live_.cancelled();
        },
        [&] { return stopped(); }, &live_.waker(), run_.provider_thread,
        store_start_ && first ? &meanwhile_ : nullptr, &on_tool_call);
  }

  // One provider call and what follows it; false when the run ends.
  bool take_step(int64_t step) {
    const bool nothing_ran = !start_stored() && step == 1;
    ProviderResult result = call_model();
    if (result.refused && nothing_ran) refuse(result, run_);
    // A tool_choice that makes the model call a tool holds for the first step only, as
    // the OpenAI Agents SDK resets it: held on every step, the model could never answer,
    // and every such run would end at max_steps.
    std::optional<ToolChoice>& choice = run_.request.tool_choice;
    if (choice && (choice->mode == "required" || choice->mode == "tool")) choice = ToolChoice{};
    if (store_start_) finish_start();
    attempts_ += result.attempts;
    RunSummary taken = summarise(std::move(result), run_.context);
    summary_.input_tokens += taken.input_tokens;
    summary_.output_tokens += taken.output_tokens;
    summary_.text = taken.text;
    if (taken.reason != "tool_use") {
      summary_.reason = std::move(taken.reason);
      summary_.provider_reason = std::move(taken.provider_reason);
      summary_.failed = taken.failed;
      summary_.error_code = std::move(taken.error_code);
      summary_.error_message = std::move(taken.error_message);
      summary_.retry_after_ms = taken.retry_after_ms;
      summary_.upstream_status = taken.upstream_status;
      if (!taken.text.empty()) keep(text_message("assistant", taken.text));
      return false;
    }
    keep(answer_message(taken.text, taken.tool_calls));
    return after_calls(taken.tool_calls, step);
  }

  void keep(StoredMessage message) {
    run_.context.fresh.push_back(message);
    run_.made.push_back(std::move(message));
  }

  void send_result(const ToolResult& result) {
    deliver(live_.append_text([&](int64_t seq) {
      return tool_result_text(result.call_id, result.name, result.output, result.is_error,
                              result.duration_ms, seq);
    }));
  }

  // The results of `calls` (the step's, in the model's order): those `ran`, and for the
  // others `why` they did not run. Each result of a call agentrt answers is an event.
  void keep_results(const std::vector<ToolCall>& calls, const std::vector<ToolResult>& ran,
                    const std::string& why) {
    std::vector<ToolResult> results;
    for (const ToolCall& call : calls) {
      auto found = std::find_if(ran.begin(), ran.end(),
                                [&](const ToolResult& r) { return r.call_id == call.id; });
      results.push_back(found != ran.end() ? *found : not_run(call, why));
      if (found == ran.end() && !router_.client_runs(call)) send_result(results.back());
    }
    if (!results.empty()) keep(results_message(results));
  }

  // After a step whose model called tools; false when the run ends.
  bool after_calls(const std::vector<ToolCall>& calls, int64_t step) {
    if (step >= run_.max_steps) {
      keep_results(calls, {}, "not run: max_steps");
      summary_.reason = "max_steps";
      return false;
    }
    const StepCalls sorted = sort_calls(calls, router_);
    for (const ToolCall& call : sorted.approval)
      deliver(live_.append_text([&](int64_t seq) {
        return approval_request_text(call.id, call.name, call.arguments, router_.server_of(call),
                                     seq);
      }));
    std::vector<ToolResult> ran;
    if (!sorted.now.empty()) {
      store_start_now();
      ran = run_tool_calls(sorted.now, router_, [this] { return stopped(); });
      for (const ToolResult& result : ran) send_result(result);
    }
    const bool interrupted =
        std::any_of(ran.begin(), ran.end(), [](const ToolResult& r) { return r.interrupted; }) ||
        (!ran.empty() && stopped());
    if (interrupted) {
      // Nothing stays pending on a run that was stopped.
      keep_results(calls, ran, "interrupted");
      summary_.reason = "interrupted";
      return false;
    }
    if (!ran.empty()) keep(results_message(ran));
    if (sorted.client.empty() && sorted.approval.empty()) return true;
    summary_.tool_calls = sorted.client;
    for (const ToolCall& call : sorted.approval)
      summary_.approvals.push_back({call, router_.server_of(call)});
    summary_.reason = sorted.approval.empty() ? "tool_use" : "approval_required";
    return false;
  }

  // The calls a person approved run, and the denied are answered, before the first step;
  // their results go after the request's tool messages. False when the run was stopped
  // meanwhile.
  bool answer_approvals() {
    store_start_now();
    std::vector<ToolCall> approved;
    for (const Approval& a : run_.approvals)
      if (a.approve) approved.push_back(a.call);
    const std::vector<ToolResult> ran =
        run_tool_calls(approved, router_, [this] { return stopped(); });
    std::vector<ToolResult> results;
    for (const Approval& a : run_.approvals) {
      auto found = std::find_if(ran.begin(), ran.end(),
                                [&](const ToolResult& r) { return r.call_id == a.call.id; });
      results.push_back(found != ran.end()
                            ? *found
                            : not_run(a.call, a.reason.empty() ? "denied" : "denied: " + a.reason));
      send_result(results.back());
    }
    StoredMessage message = results_message(results);
    std::vector<StoredMessage>& fresh = run_.context.fresh;
    fresh.insert(fresh.begin() + static_cast<std::ptrdiff_t>(leading_tool_messages(fresh)),
                 message);
    std::vector<StoredMessage>& asked = run_.request.messages;
    asked.insert(asked.begin() + static_cast<std::ptrdiff_t>(leading_tool_messages(asked)),
                 std::move(message));
    if (std::none_of(ran.begin(), ran.end(), [](const ToolResult& r) { return r.interrupted; }) &&
        !stopped())
      return true;
    summary_.reason = "interrupted";
    return false;
  }

  RunService& service_;
  PreparedRun& run_;
  LiveRun& live_;
  LiveGuard guard_;
  HeldSink held_;
  const bool start_with_call_;
  RunSink& sink_;
  std::optional<StartWhileCalling> store_start_;
  std::function<void()> meanwhile_;
  ToolRouter router_;
  bool receiver_gone_ = false;
  bool started_early_ = false;  // a StartWrite::with_end run's start, stored for its tools
  RunSummary summary_;
  int attempts_ = 0;
};

RunSummary RunService::execute(PreparedRun& run, RunSink& receiver) {
  RunExecution execution(*this, run, receiver);
  return counted_run(run, [&] { return execution.execute(); });
}

}  // namespace agentrt::core
