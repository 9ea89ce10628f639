// An agent's `tools` (docs/tools.md, "Agents"): client tools as a request gives them,
// and references to server tools, {"type":"mcp",...} and {"type":"builtin",...}, in one
// array. Read with the run request's reader, refused with its words: every refusal is a
// 400 naming the field. Whether a referenced server exists, and whether two servers'
// tools clash, is the tool servers' to say (core/tools/offered_tools.h).
#pragma once

#include "core/runs/tool_spec.h"

#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core {

struct AgentTools {
  std::vector<ToolSpec> client;
  std::vector<ToolRef> refs;
};

// The built-in tools' names.
inline constexpr const char* kMemorySearch = "memory_search";
inline constexpr const char* kMemorySave = "memory_save";

// `json`, the array named `field`; a client tool's or a built-in's name may be used
// once, and a server referenced once.
AgentTools read_agent_tools_text(std::string_view json, const std::string& field);

// The array as the agent shows and stores it: its client tools, then its references.
std::string agent_tools_json(const std::vector<ToolSpec>& client, const std::vector<ToolRef>& refs);

}  // namespace agentrt::core
