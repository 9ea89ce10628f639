// The configured tool servers (docs/tools.md, "Tool servers"): each an instance of a
// tool plugin (ABI 1.9) made from one `tool_servers` entry. An entry that cannot be
// made (its plugin missing or of another kind, its create failing) is kept with the
// reason, so that GET /admin/tool-servers and the log say why, and is never offered.
#pragma once

#include "core/config/config.h"
#include "core/plugin_host/plugin_host.h"
#include "core/plugin_host/tool_instance.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt::core {

// One tool as a server lists it.
struct ServerTool {
  std::string name;
  std::string description;
  nlohmann::json parameters;  // a JSON Schema object
};

struct ToolServer {
  ToolServerConfig config;
  std::string source;                      // "config"
  std::shared_ptr<ToolInstance> instance;  // null when it could not be made
  std::string error;                       // why not
};

class ToolServers {
 public:
  ToolServers(const PluginHost& host, const std::vector<ToolServerConfig>& entries);
  ~ToolServers();

  // Shared: a run keeps the server it resolved (and its instance) for as long as it
  // uses it, whatever happens to the entry meanwhile.
  std::shared_ptr<const ToolServer> find(const std::string& name) const;
  std::vector<std::shared_ptr<const ToolServer>> all() const;

  // The server's tools now; throws PluginError when it cannot list them, and
  // DomainError when its answer breaks the SDK's shape.
  static std::vector<ServerTool> tools_of(const ToolServer& server);

  // GET /admin/tool-servers: {"data":[{"name","type","source","transport" (http, stdio,
  // in_process),"url"?,
  // "require_approval","timeout_ms","healthy","error"?,"tools":[{"name","description"}]}]}.
  // Asks every server for its tools and health: an admin's look, not a run's path.
  nlohmann::json list() const;

 private:
  mutable std::mutex mutex_;  // guards servers_
  std::vector<std::shared_ptr<const ToolServer>> servers_;
};

// {"tools":[{"name","description"?,"parameters"?}]} as a tool plugin writes it; throws
// DomainError naming what is wrong. A name listed twice keeps its first entry.
std::vector<ServerTool> parse_tool_list(const std::string& json_text);

}  // namespace agentrt::core
