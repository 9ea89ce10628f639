// Runs the server calls of one step (docs/tools.md, "Failure and cancellation"): all
// at once, each bounded by its server's timeout, all stopped by the run's cancellation;
// whatever happens, each call gets a result the model can read, and none is left
// running when this returns.
#pragma once

#include "core/runs/tool_spec.h"
#include "core/tools/tool_servers.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace agentrt::core {

struct ServerCall {
  ToolCall call;
  std::shared_ptr<const ToolServer> server;  // made (server->instance set)
};

struct ToolResult {
  std::string call_id, name, output;
  bool is_error = false;
  // Stopped by the run's cancellation before it finished: the run ends interrupted.
  bool interrupted = false;
  int64_t duration_ms = 0;
  bool timed_out = false;  // stopped at its server's timeout
};

// Results in the order of `calls`. `cancelled` is asked every 50 ms; once it says yes,
// every unfinished call is cancelled and ends as an "interrupted" error. A result is cut
// at `max_output_bytes` (at a character's end) with a note saying so.
std::vector<ToolResult> run_server_calls(const std::vector<ServerCall>& calls,
                                         uint64_t max_output_bytes,
                                         const std::function<bool()>& cancelled);

}  // namespace agentrt::core
