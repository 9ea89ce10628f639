#include "core/runs/tool_step.h"

#include "core/log/logger.h"
#include "core/metrics/metrics.h"
#include "text/utf8.h"

#include <algorithm>

namespace agentrt::core {
namespace {

// A built-in tool's output held to the same bound as a server's.
void cut(ToolResult& result, uint64_t max_output_bytes) {
  if (result.output.size() <= max_output_bytes) return;
  result.output = std::string(text::utf8_prefix(result.output, max_output_bytes)) +
                  "\n[output cut at " + std::to_string(max_output_bytes) + " bytes]";
}

// agentrt_tool_calls_total; a call of a tool the run does not offer names none.
void count_call(const ToolResult& result, bool offered, const std::string& server) {
  metrics::Metrics* measured = metrics::active();
  if (measured == nullptr) return;
  const char* outcome = result.interrupted ? "interrupted"
                        : result.timed_out ? "timeout"
                        : result.is_error  ? "error"
                                           : "ok";
  if (!offered)
    measured->tool_called(server, "", "not_offered");
  else
    measured->tool_called(server, result.name, outcome);
}

void log_failure(const ToolResult& result, const std::string& server) {
  if (!result.is_error || result.interrupted) return;
  constexpr size_t kReasonBytes = 300;
  log_warn("tool call failed", {{"server", server},
                                {"tool", result.name},
                                {"call_id", result.call_id},
                                {"reason", text::utf8_prefix(result.output, kReasonBytes)}});
}

}  // namespace

const ToolRoute* ToolRouter::route(const std::string& name) const {
  if (!specs || !routes) return nullptr;
  for (size_t i = 0; i < specs->size() && i < routes->size(); ++i)
    if ((*specs)[i].name == name) return &(*routes)[i];
  return nullptr;
}

bool ToolRouter::client_runs(const ToolCall& call) const {
  const ToolRoute* found = route(call.name);
  return found && found->executor == ToolRoute::Executor::client;
}

std::string ToolRouter::server_of(const ToolCall& call) const {
  const ToolRoute* found = route(call.name);
  if (found && found->server) return found->server->config.name;
  return "agentrt";
}

StepCalls sort_calls(const std::vector<ToolCall>& calls, const ToolRouter& router) {
  StepCalls sorted;
  for (const ToolCall& call : calls) {
    const ToolRoute* found = router.route(call.name);
    if (found && found->executor == ToolRoute::Executor::client)
      sorted.client.push_back(call);
    else if (found && found->require_approval)
      sorted.approval.push_back(call);
    else
      sorted.now.push_back(call);
  }
  return sorted;
}

ToolResult not_run(const ToolCall& call, std::string why) {
  return {call.id, call.name, std::move(why), true, false, 0};
}

std::vector<ToolResult> run_tool_calls(const std::vector<ToolCall>& calls, const ToolRouter& router,
                                       const std::function<bool()>& cancelled) {
  std::vector<ToolResult> results(calls.size());
  std::vector<ServerCall> server_calls;
  std::vector<size_t> server_at;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    const ToolRoute* found = router.route(call.name);
    if (!found) {
      results[i] = not_run(call, "no tool named '" + call.name + "' is offered to this run");
      count_call(results[i], false, "agentrt");
    } else if (found->executor == ToolRoute::Executor::builtin) {
      if (cancelled && cancelled()) {
        results[i] = not_run(call, "interrupted");
        results[i].interrupted = true;
        count_call(results[i], true, "agentrt");
        continue;
      }
      results[i] = router.builtin ? router.builtin(call) : not_run(call, "not available");
      cut(results[i], router.max_output_bytes);
      log_failure(results[i], "agentrt");
      count_call(results[i], true, "agentrt");
    } else {
      server_calls.push_back({call, found->server});
      server_at.push_back(i);
    }
  }
  std::vector<ToolResult> ran = run_server_calls(server_calls, router.max_output_bytes, cancelled);
  for (size_t k = 0; k < ran.size(); ++k) {
    log_failure(ran[k], server_calls[k].server->config.name);
    count_call(ran[k], true, server_calls[k].server->config.name);
    results[server_at[k]] = std::move(ran[k]);
  }
  return results;
}

}  // namespace agentrt::core
