// The tool calls of one step that agentrt runs itself (docs/tools.md): a tool server's
// and the built-in tools', sorted from the client's and from those that wait for a
// person's approval, run, and answered with a result the model reads, whatever happens.
#pragma once

#include "core/runs/tool_spec.h"
#include "core/tools/server_calls.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace agentrt::core {

// What a run offers and how its calls run.
struct ToolRouter {
  const std::vector<ToolSpec>* specs = nullptr;
  const std::vector<ToolRoute>* routes = nullptr;  // one for each of `specs`
  uint64_t max_output_bytes = 256 * 1024;
  std::function<ToolResult(const ToolCall&)> builtin;  // runs a built-in tool's call

  // The route of a call's tool; nullptr for a name the run does not offer.
  const ToolRoute* route(const std::string& name) const;
  // Whether the caller runs the call: a client tool's. A name the run does not offer is
  // agentrt's to answer, with an error the model reads.
  bool client_runs(const ToolCall& call) const;
  // The server name an approval_request and /chat show: the tool server's, or "agentrt".
  std::string server_of(const ToolCall& call) const;
};

// A step's calls by who answers them.
struct StepCalls {
  std::vector<ToolCall> now;       // run by agentrt in this step
  std::vector<ToolCall> client;    // left to the caller
  std::vector<ToolCall> approval;  // wait for a person's approval
  bool empty() const { return now.empty() && client.empty() && approval.empty(); }
};
StepCalls sort_calls(const std::vector<ToolCall>& calls, const ToolRouter& router);

// Runs `calls` (built-in ones first, one by one, then the servers' at once), results in
// the order of `calls`. `cancelled` stops them as run_server_calls says; a failure is
// logged once.
std::vector<ToolResult> run_tool_calls(const std::vector<ToolCall>& calls, const ToolRouter& router,
                                       const std::function<bool()>& cancelled);

// A result that says why `call` did not run ("not run: max_steps", "denied: ...").
ToolResult not_run(const ToolCall& call, std::string why);

}  // namespace agentrt::core
