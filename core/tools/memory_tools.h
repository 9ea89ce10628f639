// The built-in tools (docs/tools.md, "Built-in tools"): memory_search and memory_save,
// run by agentrt itself as the run's actor, in the run's cell, within the memory layers
// the agent's runs may see: agent_memory only in the agent's namespace, session only in
// the run's session. Whatever goes wrong is an error result the model reads; nothing
// outside that scope is ever read or written.
#pragma once

#include "core/memory/memory_service.h"
#include "core/runs/tool_spec.h"
#include "core/tools/server_calls.h"

#include <string>
#include <vector>

namespace agentrt::core {

struct MemoryToolScope {
  std::string cell, actor, session_id, agent_namespace;
  std::vector<std::string> layers;  // those the agent's runs see
};

// Runs `call` (memory_search or memory_save) and says how it went.
ToolResult run_memory_tool(MemoryService& memory, const ToolCall& call,
                           const MemoryToolScope& scope);

}  // namespace agentrt::core
