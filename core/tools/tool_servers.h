// The tool servers (docs/operator-guide.md, "Tool servers"): each an instance of a tool
// plugin (ABI 1.9) made from one entry, of the config file's `tool_servers` or saved over
// the admin API (tool_server_admin.h). An entry that cannot be made (its plugin missing
// or of another kind, its create failing) is kept with the reason, so that GET
// /admin/tool-servers and the log say why, and is never offered.
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
  std::string source;                      // "config" or "api"
  std::shared_ptr<ToolInstance> instance;  // null when it could not be made
  std::string error;                       // why not
  std::string created_at, updated_at;      // an API entry's; empty for the config's
};

// The server of one entry; one that cannot be made carries the reason, which is logged.
std::shared_ptr<ToolServer> make_tool_server(const PluginHost& host, const ToolServerConfig& config,
                                             std::string source);

class ToolServers {
 public:
  ToolServers(const PluginHost& host, const std::vector<ToolServerConfig>& entries);
  ~ToolServers();

  // Puts each server in place of the one of its name, where that one was listed, or
  // after the others; readers see all of them or none. A replaced server lives on for as
  // long as a run holds it, and its instance with it.
  void put(std::vector<std::shared_ptr<const ToolServer>> servers);
  // Takes the server of `name` out; false when there is none.
  bool remove(const std::string& name);

  // Shared: a run keeps the server it resolved (and its instance) for as long as it
  // uses it, whatever happens to the entry meanwhile.
  std::shared_ptr<const ToolServer> find(const std::string& name) const;
  std::vector<std::shared_ptr<const ToolServer>> all() const;

  // The server's tools now; throws PluginError when it cannot list them, and
  // DomainError when its answer breaks the SDK's shape.
  static std::vector<ServerTool> tools_of(const ToolServer& server);

  // GET /admin/tool-servers: {"data":[{"name","type","source","transport" (http, stdio,
  // in_process),"url"?,"headers"? (references masked as providers' keys),
  // "require_approval","timeout_ms","healthy","error"?,"tools":[{"name","description"}],
  // "created_at"?,"updated_at"?}]}: the config file's in its order, then the API's in
  // the order they were first saved. Asks every server for its tools and health: an
  // admin's look, not a run's path.
  nlohmann::json list() const;

 private:
  mutable std::mutex mutex_;  // guards servers_, never held while an instance is made or ended
  std::vector<std::shared_ptr<const ToolServer>> servers_;
};

// {"tools":[{"name","description"?,"parameters"?}]} as a tool plugin writes it; throws
// DomainError for another shape. A name listed twice keeps its first entry; a tool whose
// name no vendor takes, or whose parameters are no object, is left out (logged).
std::vector<ServerTool> parse_tool_list(const std::string& json_text);

}  // namespace agentrt::core
