#include "core/tools/tool_servers.h"

#include "core/domain/errors.h"
#include "core/domain/secret_ref.h"
#include "core/log/logger.h"
#include "core/runs/tool_spec.h"

#include <algorithm>

namespace agentrt::core {

using nlohmann::json;

std::shared_ptr<ToolServer> make_tool_server(const PluginHost& host, const ToolServerConfig& config,
                                             std::string source) {
  auto server = std::make_shared<ToolServer>();
  server->config = config;
  server->source = std::move(source);
  auto plugin = host.find(config.type);
  if (!plugin) {
    server->error = "no tool plugin named '" + config.type + "' is loaded";
  } else if (plugin->kind() != AGENTRT_KIND_TOOL) {
    server->error = "plugin '" + config.type + "' is a " + plugin_kind_name(plugin->kind()) +
                    " plugin, not a tool plugin";
  } else {
    try {
      server->instance = std::make_shared<ToolInstance>(plugin, config.entry.dump());
    } catch (const PluginError& e) {
      server->error = e.what();
    }
  }
  if (!server->error.empty())
    log_error("tool server not available", {{"name", config.name}, {"reason", server->error}});
  return server;
}

namespace {

// MCP's two transports; a native tool plugin's tools run in agentd itself.
const char* transport_of(const json& entry) {
  if (entry.contains("command")) return "stdio";
  if (entry.contains("url")) return "http";
  return "in_process";
}

// A URL's user and password, should an operator put them there, are a credential.
std::string shown_url(std::string url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host = scheme + 3;
  const size_t at = url.find('@', host);
  if (at != std::string::npos && at < url.find_first_of("/?#", host))
    url.replace(host, at - host, "***");
  return url;
}

// Header values are credential references, shown as a shared provider's key is.
json shown_headers(const json& headers) {
  json shown = json::object();
  for (const auto& [name, ref] : headers.items()) shown[name] = masked_secret_ref(ref);
  return shown;
}

json tools_entry(const ToolServer& server, json& out) {
  json tools = json::array();
  try {
    for (const ServerTool& tool : ToolServers::tools_of(server))
      tools.push_back({{"name", tool.name}, {"description", tool.description}});
  } catch (const std::exception& e) {
    out["healthy"] = false;
    out["error"] = std::string("cannot list its tools: ") + e.what();
  }
  return tools;
}

}  // namespace

ToolServers::ToolServers(const PluginHost& host, const std::vector<ToolServerConfig>& entries) {
  for (const ToolServerConfig& entry : entries)
    servers_.push_back(make_tool_server(host, entry, "config"));
}

ToolServers::~ToolServers() = default;

void ToolServers::put(std::vector<std::shared_ptr<const ToolServer>> servers) {
  // The servers replaced end here, after the lock: a plugin's destroy may wait on its
  // server, and finds must not wait with it.
  std::vector<std::shared_ptr<const ToolServer>> replaced;
  std::lock_guard lock(mutex_);
  for (auto& server : servers) {
    auto same = std::find_if(servers_.begin(), servers_.end(), [&](const auto& listed) {
      return listed->config.name == server->config.name;
    });
    if (same == servers_.end()) {
      servers_.push_back(std::move(server));
    } else {
      replaced.push_back(std::move(*same));
      *same = std::move(server);
    }
  }
}

bool ToolServers::remove(const std::string& name) {
  std::shared_ptr<const ToolServer> removed;  // ends after the lock, as in put
  std::lock_guard lock(mutex_);
  auto it = std::find_if(servers_.begin(), servers_.end(),
                         [&](const auto& listed) { return listed->config.name == name; });
  if (it == servers_.end()) return false;
  removed = std::move(*it);
  servers_.erase(it);
  return true;
}

std::shared_ptr<const ToolServer> ToolServers::find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  for (const auto& server : servers_)
    if (server->config.name == name) return server;
  return nullptr;
}

std::vector<std::shared_ptr<const ToolServer>> ToolServers::all() const {
  std::lock_guard lock(mutex_);
  return servers_;
}

std::vector<ServerTool> ToolServers::tools_of(const ToolServer& server) {
  if (!server.instance) throw PluginError(AGENTRT_ERR_UNAVAILABLE, server.error);
  return parse_tool_list(server.instance->list_tools());
}

json ToolServers::list() const {
  json data = json::array();
  for (const auto& server : all()) {
    const ToolServerConfig& config = server->config;
    json out = {{"name", config.name},
                {"type", config.type},
                {"source", server->source},
                {"transport", transport_of(config.entry)},
                {"require_approval", config.require_approval},
                {"timeout_ms", config.timeout_ms}};
    if (auto url = config.entry.find("url"); url != config.entry.end() && url->is_string())
      out["url"] = shown_url(url->get<std::string>());
    if (auto headers = config.entry.find("headers");
        headers != config.entry.end() && headers->is_object())
      out["headers"] = shown_headers(*headers);
    std::string why = server->error;
    out["healthy"] = server->instance && server->instance->answers(&why);
    if (!out["healthy"].get<bool>()) out["error"] = why;
    out["tools"] = out["healthy"].get<bool>() ? tools_entry(*server, out) : json::array();
    if (!server->created_at.empty()) {
      out["created_at"] = server->created_at;
      out["updated_at"] = server->updated_at;
    }
    data.push_back(std::move(out));
  }
  return {{"data", std::move(data)}};
}

std::vector<ServerTool> parse_tool_list(const std::string& json_text) {
  const json listed = json::parse(json_text, nullptr, false);
  if (!listed.is_object() || !listed.contains("tools") || !listed["tools"].is_array())
    throw invalid("a tool list is {\"tools\":[...]}");
  std::vector<ServerTool> tools;
  for (const json& entry : listed["tools"]) {
    // A tool no vendor could be offered (MCP allows names such as "files.read") is left
    // out, not the server's whole list with it.
    const json name = entry.is_object() ? entry.value("name", json()) : json();
    if (!name.is_string() || !valid_tool_name(name.get<std::string>())) {
      log_warn("a listed tool is left out: its name is not 1 to 64 of A-Z, a-z, 0-9, _ and -",
               {{"tool", name.is_string() ? name : json(entry.dump().substr(0, 100))}});
      continue;
    }
    ServerTool tool;
    tool.name = name.get<std::string>();
    if (auto d = entry.find("description"); d != entry.end() && d->is_string())
      tool.description = d->get<std::string>();
    tool.parameters = entry.value("parameters", json{{"type", "object"}});
    if (!tool.parameters.is_object()) {
      log_warn("a listed tool is left out: its parameters are not an object",
               {{"tool", tool.name}});
      continue;
    }
    bool repeated = false;
    for (const ServerTool& earlier : tools) repeated = repeated || earlier.name == tool.name;
    if (!repeated) tools.push_back(std::move(tool));
  }
  return tools;
}

}  // namespace agentrt::core
