#include "core/tools/offered_tools.h"

#include "core/domain/errors.h"
#include "core/log/logger.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace agentrt::core {
namespace {

using nlohmann::json;

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The tools of the server a reference names, those it names when it names any; throws
// as ToolServers::tools_of does when they cannot be listed.
std::vector<ServerTool> referenced_tools(const ToolServer& server, const ToolRef& ref) {
  std::vector<ServerTool> tools = ToolServers::tools_of(server);
  if (!ref.tools.empty())
    tools.erase(
        std::remove_if(tools.begin(), tools.end(),
                       [&](const ServerTool& tool) { return !listed(ref.tools, tool.name); }),
        tools.end());
  return tools;
}

bool needs_approval(const ToolServer& server, const ToolRef& ref) {
  const std::string& word =
      ref.require_approval.empty() ? server.config.require_approval : ref.require_approval;
  return word == "always";
}

ToolSpec spec_of(const ServerTool& tool) {
  json parameters = tool.parameters;
  // Every vendor takes a tool's input as an object; MCP says so too, but a server may
  // leave it unsaid.
  if (!parameters.contains("type")) parameters["type"] = "object";
  return {tool.name, tool.description, parameters.dump()};
}

void add_server(OfferedTools& offered, const ToolServers* servers, const ToolRef& ref) {
  std::shared_ptr<const ToolServer> server = servers ? servers->find(ref.server) : nullptr;
  if (!server) {
    log_warn("tool server of an agent is gone; its tools are not offered",
             {{"server", ref.server}});
    return;
  }
  std::vector<ServerTool> tools;
  try {
    tools = referenced_tools(*server, ref);
  } catch (const std::exception& e) {
    log_warn("tool server cannot list its tools; they are not offered",
             {{"server", ref.server}, {"reason", e.what()}});
    return;
  }
  const ToolRoute route{ToolRoute::Executor::server, server, needs_approval(*server, ref)};
  for (const ServerTool& tool : tools)
    offered.add(spec_of(tool), route, "tool server '" + ref.server + "'");
}

}  // namespace

void OfferedTools::add(ToolSpec spec, ToolRoute route, const std::string& by) {
  if (find_tool(specs, spec.name))
    throw invalid("field 'tools': tool '" + spec.name + "' of " + by +
                  " has the name of another tool the run offers");
  specs.push_back(std::move(spec));
  routes.push_back(std::move(route));
}

const ToolRoute* route_of(const std::vector<ToolSpec>& specs, const std::vector<ToolRoute>& routes,
                          const std::string& name) {
  for (size_t i = 0; i < specs.size() && i < routes.size(); ++i)
    if (specs[i].name == name) return &routes[i];
  return nullptr;
}

ToolSpec builtin_tool(const std::string& name, const std::vector<std::string>& layers) {
  const json layer = {{"type", "string"}, {"enum", layers}};
  if (name == kMemorySearch) {
    const json parameters = {{"type", "object"},
                             {"properties",
                              {{"query", {{"type", "string"}, {"description", "What to look for"}}},
                               {"layers", {{"type", "array"}, {"items", layer}}},
                               {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}}}},
                             {"required", {"query"}}};
    return {name, "Searches the memory this conversation may see, by meaning and words.",
            parameters.dump()};
  }
  const json parameters = {{"type", "object"},
                           {"properties",
                            {{"layer", layer},
                             {"content", {{"type", "string"}, {"description", "What to keep"}}},
                             {"metadata", {{"type", "object"}}}}},
                           {"required", {"layer", "content"}}};
  return {name, "Saves an entry to a memory layer this conversation may write.", parameters.dump()};
}

void add_referenced_tools(OfferedTools& offered, const ToolServers* servers,
                          const std::vector<ToolRef>& refs,
                          const std::vector<std::string>& layers) {
  for (const ToolRef& ref : refs) {
    if (ref.type == "builtin")
      offered.add(builtin_tool(ref.name, layers), {ToolRoute::Executor::builtin, nullptr, false},
                  "agentrt");
    else
      add_server(offered, servers, ref);
  }
}

void check_agent_tools(const ToolServers& servers, const AgentTools& tools) {
  OfferedTools offered;
  for (const ToolSpec& spec : tools.client) offered.add(spec, {}, "the agent");
  for (size_t i = 0; i < tools.refs.size(); ++i) {
    const ToolRef& ref = tools.refs[i];
    if (ref.type == "builtin") {
      offered.add(builtin_tool(ref.name, {}), {}, "agentrt");
      continue;
    }
    std::shared_ptr<const ToolServer> server = servers.find(ref.server);
    if (!server)
      throw invalid("field 'tools': no tool server is named '" + ref.server +
                    "' (GET /admin/tool-servers lists them)");
    std::vector<ServerTool> listed_now;
    try {
      listed_now = ToolServers::tools_of(*server);
    } catch (const std::exception&) {
      continue;  // down now: its tools are checked by the runs that offer them
    }
    for (const std::string& name : ref.tools)
      if (std::none_of(listed_now.begin(), listed_now.end(),
                       [&](const ServerTool& tool) { return tool.name == name; }))
        throw invalid("field 'tools': tool server '" + ref.server + "' lists no tool '" + name +
                      "'");
    for (const ServerTool& tool : referenced_tools(*server, ref))
      offered.add(spec_of(tool), {}, "tool server '" + ref.server + "'");
  }
}

}  // namespace agentrt::core
