#include "core/tools/tool_server_admin.h"

#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/log/logger.h"
#include "core/tools/tool_server_request.h"

namespace agentrt::core {
namespace {

using nlohmann::json;

struct StoredRow {
  std::string name, entry, created_at, updated_at;
};

std::vector<StoredRow> stored_rows(StateStore& store) {
  std::vector<StoredRow> rows;
  store.read([&](Connection& db) {
    auto row =
        db.prepare("SELECT name, entry, created_at, updated_at FROM tool_servers ORDER BY seq");
    while (row.step())
      rows.push_back(
          {row.column_text(0), row.column_text(1), row.column_text(2), row.column_text(3)});
  });
  return rows;
}

// A server that is listed with why it cannot serve, and is offered to no run.
std::shared_ptr<ToolServer> unavailable(ToolServerConfig config, const std::string& why) {
  log_error("tool server not available", {{"name", config.name}, {"reason", why}});
  auto server = std::make_shared<ToolServer>();
  server->config = std::move(config);
  server->source = "api";
  server->error = why;
  return server;
}

// A header reference the fence refuses: its field and the rule it breaks.
struct HeaderRefusal {
  std::string field, rule;
};

std::optional<HeaderRefusal> header_refusal(const SecretFence& fence, const json& entry) {
  const auto headers = entry.find("headers");
  if (headers == entry.end() || !headers->is_object()) return std::nullopt;
  for (const auto& [name, ref] : headers->items())
    if (auto refusal = fence_refusal(fence, ref)) return HeaderRefusal{"headers." + name, *refusal};
  return std::nullopt;
}

}  // namespace

ToolServerAdmin::ToolServerAdmin(StateStore& store, const PluginHost& host, ToolServers& servers,
                                 bool mcp_disabled, SecretFence fence)
    : store_(store),
      host_(host),
      servers_(servers),
      mcp_disabled_(mcp_disabled),
      fence_(std::make_shared<const SecretFence>(std::move(fence))) {}

// What the config file holds wins over what the API stored, as for shared providers: a
// stored server whose name a later config took is left out, said so, and can still be
// deleted. The API refuses the same clash when it is made.
void ToolServerAdmin::load() {
  std::vector<std::shared_ptr<const ToolServer>> loaded;
  std::lock_guard lock(writer_);
  for (const StoredRow& row : stored_rows(store_)) {
    if (servers_.find(row.name)) {
      log_error(
          "tool server saved over the API not served: the config file has one of its name; "
          "delete it or rename the config's",
          {{"name", row.name}});
      shadowed_.insert(row.name);
      continue;
    }
    const json entry = json::parse(row.entry, nullptr, false);
    std::shared_ptr<ToolServer> server;
    if (!entry.is_object())
      server = unavailable(stored_tool_server(row.name, json::object()),
                           "its stored entry is not a JSON object");
    else if (mcp_disabled_)
      server = unavailable(stored_tool_server(row.name, entry),
                           "the mcp plugin is disabled in the config");
    else if (auto refusal = header_refusal(*fence_, entry))
      server = unavailable(stored_tool_server(row.name, entry),
                           "its " + refusal->field + " breaks the secrets fence (" + refusal->rule +
                               "); save the server again with one inside it");
    else
      server = make_stored(stored_tool_server(row.name, entry));
    server->created_at = row.created_at;
    server->updated_at = row.updated_at;
    loaded.push_back(std::move(server));
  }
  servers_.put(std::move(loaded));
}

std::vector<ToolServerConfig> ToolServerAdmin::parse(const json& body) const {
  require_object(body);
  reject_unknown_fields(body, {"servers"});
  auto list = body.find("servers");
  if (list == body.end() || !list->is_array() || list->empty())
    throw invalid("field 'servers' must be a non-empty array");
  std::vector<ToolServerConfig> configs;
  for (size_t i = 0; i < list->size(); ++i) {
    configs.push_back(parse_tool_server_request((*list)[i], i));
    if (auto refusal = header_refusal(*fence_, configs.back().entry))
      throw invalid("field 'servers[" + std::to_string(i) + "]." + refusal->field +
                    ".value': " + refusal->rule);
    for (size_t j = 0; j < i; ++j)
      if (configs[j].name == configs[i].name)
        throw invalid("field 'servers[" + std::to_string(i) + "].name' repeats the tool server '" +
                      configs[i].name + "' of servers[" + std::to_string(j) + "]");
  }
  if (mcp_disabled_)
    throw invalid(
        "the mcp plugin is disabled in the config (plugins.mcp), so no tool server can "
        "be saved over the API");
  return configs;
}

// A server saved over the API, its instance's secret lookups held to the fence; throws
// the plugin's PluginError when it refuses the entry.
std::shared_ptr<ToolServer> ToolServerAdmin::fenced_server(
    const std::shared_ptr<const LoadedPlugin>& plugin, const ToolServerConfig& config) const {
  auto server = std::make_shared<ToolServer>();
  server->config = config;
  server->source = "api";
  server->instance = std::make_shared<ToolInstance>(plugin, config.entry.dump(), fence_);
  return server;
}

// The instance is made before anything is stored: a server its plugin refuses (a header
// reference that does not resolve) stops the whole request.
std::shared_ptr<ToolServer> ToolServerAdmin::make(const ToolServerConfig& config,
                                                  size_t index) const {
  const std::string field = "servers[" + std::to_string(index) + "]";
  auto plugin = host_.find(config.type);
  if (!plugin || plugin->kind() != AGENTRT_KIND_TOOL)
    throw invalid("field '" + field + ".type': no tool plugin '" + config.type + "' is loaded");
  try {
    return fenced_server(plugin, config);
  } catch (const PluginError& e) {
    throw invalid("field '" + field + "': the " + config.type + " plugin refused it: " + e.what());
  }
}

// A stored server as make_tool_server makes the config's, but with its lookups fenced.
std::shared_ptr<ToolServer> ToolServerAdmin::make_stored(const ToolServerConfig& config) const {
  auto plugin = host_.find(config.type);
  if (!plugin || plugin->kind() != AGENTRT_KIND_TOOL)
    return unavailable(config, "no tool plugin named '" + config.type + "' is loaded");
  try {
    return fenced_server(plugin, config);
  } catch (const PluginError& e) {
    return unavailable(config, e.what());
  }
}

void ToolServerAdmin::persist(const std::vector<std::shared_ptr<const ToolServer>>& servers) {
  store_.write([&](Connection& db) {
    for (const auto& server : servers)
      db.prepare(
            "INSERT INTO tool_servers(name, entry, created_at, updated_at) VALUES (?1, ?2, ?3, "
            "?4) ON CONFLICT(name) DO UPDATE SET entry = ?2, updated_at = ?4")
          .bind(1, server->config.name)
          .bind(2, server->config.entry.dump())
          .bind(3, server->created_at)
          .bind(4, server->updated_at)
          .run();
  });
}

json ToolServerAdmin::upsert(const json& body) {
  const std::vector<ToolServerConfig> configs = parse(body);
  {
    std::lock_guard lock(writer_);
    std::vector<std::shared_ptr<const ToolServer>> made;
    const std::string now = utc_timestamp_now();
    for (size_t i = 0; i < configs.size(); ++i) {
      auto existing = servers_.find(configs[i].name);
      if (existing && existing->source != "api")
        throw conflict("field 'servers[" + std::to_string(i) + "].name': the tool server '" +
                       configs[i].name + "' is the config file's; change it there");
      auto server = make(configs[i], i);
      server->created_at = existing ? existing->created_at : now;
      server->updated_at = now;
      made.push_back(std::move(server));
    }
    persist(made);
    for (const auto& server : made) {
      shadowed_.erase(server->config.name);
      log_info("tool server saved", {{"name", server->config.name}, {"source", "api"}});
    }
    servers_.put(std::move(made));
  }
  return servers_.list();  // after the lock: it asks every server, which may take a while
}

void ToolServerAdmin::remove(const std::string& name) {
  std::lock_guard lock(writer_);
  auto delete_row = [&] {
    store_.write([&](Connection& db) {
      db.prepare("DELETE FROM tool_servers WHERE name = ?").bind(1, name).run();
    });
    log_info("tool server deleted", {{"name", name}, {"source", "api"}});
  };
  if (shadowed_.count(name)) {  // stored, never served: only its row goes
    delete_row();
    shadowed_.erase(name);
    return;
  }
  auto server = servers_.find(name);
  if (!server) throw not_found("tool server '" + name + "' not found");
  if (server->source != "api")
    throw conflict("the tool server '" + name + "' is the config file's; remove it there");
  delete_row();
  servers_.remove(name);
}

}  // namespace agentrt::core
