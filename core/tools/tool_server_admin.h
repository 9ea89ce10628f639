// Tool servers saved over the admin API (POST and DELETE /admin/tool-servers): checked
// all or nothing, kept in the state store's `tool_servers` table, made again at every
// start. Like shared providers they are engine-wide: the same servers in every cell. The
// config file's entries stay its own: the API cannot take, change or delete their names.
#pragma once

#include "core/domain/secret_ref.h"
#include "core/plugin_host/plugin_host.h"
#include "core/store/state_store.h"
#include "core/tools/tool_servers.h"

#include <nlohmann/json.hpp>

#include <mutex>
#include <set>
#include <string>

namespace agentrt::core {

class ToolServerAdmin {
 public:
  // `mcp_disabled`: the config disables the mcp plugin, which forbids API tool servers
  // (an operator who disables it forbids the calls its servers would make). `fence`:
  // where the header references the API writes may point (core/domain/secret_ref.h),
  // checked when a server is saved and at every lookup.
  ToolServerAdmin(StateStore& store, const PluginHost& host, ToolServers& servers,
                  bool mcp_disabled, SecretFence fence = {});

  // Makes the stored servers after the config file's. One whose name the config now
  // holds is logged and not served, and can still be deleted; one with a header
  // reference outside the fence (stored before it) is listed unavailable with the rule.
  void load();

  // Upserts every server of {"servers":[...]} by name, all or nothing, and answers the
  // list as GET does. 400 names the bad field (a header reference outside the fence
  // among them), or the server the plugin refuses; 409 for a name of the config file's.
  nlohmann::json upsert(const nlohmann::json& body);

  // 404 for a name no server has, 409 for one of the config file's.
  void remove(const std::string& name);

 private:
  std::vector<ToolServerConfig> parse(const nlohmann::json& body) const;
  std::shared_ptr<ToolServer> make(const ToolServerConfig& config, size_t index) const;
  std::shared_ptr<ToolServer> make_stored(const ToolServerConfig& config) const;
  std::shared_ptr<ToolServer> fenced_server(const std::shared_ptr<const LoadedPlugin>& plugin,
                                            const ToolServerConfig& config) const;
  void persist(const std::vector<std::shared_ptr<const ToolServer>>& servers);

  StateStore& store_;
  const PluginHost& host_;
  ToolServers& servers_;
  const bool mcp_disabled_;
  const std::shared_ptr<const SecretFence> fence_;
  // One upsert or delete at a time, so that what it checked holds until its swap.
  std::mutex writer_;
  std::set<std::string> shadowed_;  // stored, not served: the config has the name
};

}  // namespace agentrt::core
