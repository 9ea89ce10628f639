// The server tools an agent's references offer a run (docs/tools.md, "Agents"): the
// tools each referenced tool server lists (those the reference names, when it names
// any) and the built-in memory tools, each with who runs it and whether a person must
// approve its calls first. Names are exposed as the servers give them; two tools of one
// name are a 400, when the agent is written and, should a server change its list
// since, when a run would offer both.
#pragma once

#include "core/runs/agent_tools.h"
#include "core/runs/tool_spec.h"
#include "core/tools/tool_servers.h"

#include <string>
#include <vector>

namespace agentrt::core {

struct OfferedTools {
  std::vector<ToolSpec> specs;
  std::vector<ToolRoute> routes;  // one for each of `specs`, in order

  // Refuses (400) a name already offered, saying by whom (`by`) the new one is.
  void add(ToolSpec spec, ToolRoute route, const std::string& by);
};

// The route of `name` among `offered`'s, or nullptr.
const ToolRoute* route_of(const std::vector<ToolSpec>& specs, const std::vector<ToolRoute>& routes,
                          const std::string& name);

// The built-in tool `name` (memory_search, memory_save) for runs that see `layers`.
ToolSpec builtin_tool(const std::string& name, const std::vector<std::string>& layers);

// Adds the tools of `refs` for a run that sees the memory `layers`. A server that is
// gone, or cannot list its tools now, adds none: the run goes on without them, and the
// log says why.
void add_referenced_tools(OfferedTools& offered, const ToolServers* servers,
                          const std::vector<ToolRef>& refs, const std::vector<std::string>& layers);

// For an agent's write: 400 for a reference to no tool server, a tool its server does
// not list, or two tools of one name among the agent's (client, built-in and servers').
// A server that cannot list its tools now is taken at its word: a clash found later
// refuses the runs that would offer both.
void check_agent_tools(const ToolServers& servers, const AgentTools& tools);

}  // namespace agentrt::core
