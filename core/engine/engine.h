// The engine: owns the state store, the plugin host, the plugin instances the config
// enables, and the domain services built on them. It knows nothing of HTTP; server/
// drives it.
#pragma once

#include "core/audit/audit_log.h"
#include "core/auth/auth_service.h"
#include "core/cells/cell_service.h"
#include "core/config/config.h"
#include "core/limits/limits.h"
#include "core/memory/memory_service.h"
#include "core/plugin_host/plugin_host.h"
#include "core/providers/provider_registry.h"
#include "core/runs/run_service.h"
#include "core/sessions/session_store.h"
#include "core/store/data_dir.h"
#include "core/store/state_store.h"
#include "core/tools/tool_server_admin.h"
#include "core/tools/tool_servers.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt::core {

struct PluginSummary {
  std::string name, kind, version;
};

struct HealthReport {
  bool storage_ok = false;
  double uptime_s = 0;
  std::vector<PluginSummary> plugins;  // usable plugins: loaded, and created if enabled
};

// The engine cannot start: its storage or its auth module is unusable.
class StartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StartReport {
  // The admin token made at the first start on an empty store, for the caller to show
  // once. Never logged by the engine.
  std::optional<std::string> first_admin_token;
  std::optional<std::string> admin_token_file;  // where it was also written, if anywhere
};

// How an engine holds its data directory.
enum class EngineRole {
  // The serving engine (agentd serve): it holds the directory's lock for its life, so a
  // second one on the same directory stops with DataDirInUse, and on a store that
  // never had one it makes the first admin token.
  owner,
  // A short-lived tool beside a serving engine (agentd admin-token): no lock, no token,
  // and only the state store, the cells and the auth module, none of whose schemas it
  // upgrades (a store older than this build is refused).
  guest,
};

class Engine {
 public:
  // `plugin_dirs`: the bundled directory first, then config.plugin_dirs.
  Engine(Config config, std::vector<std::string> plugin_dirs);
  ~Engine();

  // As the owner, takes the data directory's lock (DataDirInUse when another holds
  // it). Opens the store (StoreError when it cannot), discovers plugins, creates an
  // instance of every enabled one (a plugin that fails is logged and left out), starts
  // the auth module (StartError when it cannot) and, as the owner on a store that never
  // had one, makes the first admin token.
  StartReport start(EngineRole role = EngineRole::owner);

  const Config& config() const { return config_; }
  bool single_cell() const { return config_.mode == CellMode::single; }
  HealthReport health() const;

  // Every plugin discovery saw, usable or refused, with creation failures of enabled
  // plugins folded in. Works without start(): it then scans and creates on its own.
  std::vector<PluginStatus> plugin_statuses() const;
  // Why the auth module or the memory backend would not start, as serve would say it,
  // each made once on a throwaway data dir so that its own config is checked too and
  // the real store is left alone; and which other enabled plugin serve would start
  // without (not found, or refusing its config). Empty when all would. For check-config.
  std::vector<std::string> service_problems() const;

  StateStore& store() { return *store_; }
  const PluginHost& plugin_host() const { return host_; }
  std::shared_ptr<ProviderInstance> provider(const std::string& plugin_name) const;

  CellService& cells() { return *cells_; }
  ProviderRegistry& providers() { return *registry_; }
  const AuthService& auth() const { return *auth_; }
  RunService& runs() { return *runs_; }
  MemoryService& memory() { return *memory_; }
  AgentService& agents() { return *agents_; }
  const ToolServers& tool_servers() const { return *tool_servers_; }
  ToolServerAdmin& tool_server_admin() { return *tool_server_admin_; }
  // The audit log (core/audit/audit_log.h); the serving engine's only.
  AuditLog& audit() { return *audit_; }
  // Rate limits and quotas; null for a guest.
  limits::Limits* limits() { return limits_.get(); }

 private:
  void create_instances();
  // What create_instances left out or would serve wrongly, for check-config.
  std::vector<std::string> plugin_problems() const;
  void create_provider(const std::string& name, std::shared_ptr<const LoadedPlugin> plugin,
                       const std::string& json);
  void start_guest();
  void refuse_cells_beside_default() const;
  void start_auth(EngineRole role);
  void start_limits();
  // The cells' fence for the services whose stores a cell's deletion cannot see.
  CellHold cell_hold() const;
  SecretFence secret_fence() const;
  void start_memory();
  std::vector<MemoryItem> run_memory(const MemoryScope& scope);
  // An instance of the plugin the config names for a service (auth, memory), with the
  // data dir added to its config, and for a guest "guest" (ABI 1.6). StartError when it
  // cannot be had.
  std::shared_ptr<PluginInstance> service_plugin(const std::string& name, uint32_t kind,
                                                 const char* role, const std::string& data_dir,
                                                 EngineRole engine_role = EngineRole::owner) const;
  StartReport bootstrap_admin_token();
  static std::vector<PluginStatus> fold_create_errors(
      std::vector<PluginStatus> statuses, const std::map<std::string, std::string>& errors);

  Config config_;
  std::vector<std::string> plugin_dirs_;
  std::unique_ptr<DataDirLock> lock_;  // before the host and the store: released last
  PluginHost host_;
  std::unique_ptr<StateStore> store_;
  std::string cursor_key_;  // the data dir's (core/store/cursor_key.h); none for a guest
  struct ConfiguredProvider {
    std::shared_ptr<ProviderInstance> instance;
    std::vector<ModelInfo> models;  // what it listed when it was made
  };
  std::map<std::string, ConfiguredProvider> providers_;
  std::map<std::string, std::shared_ptr<PluginInstance>> others_;  // memory backends
  std::map<std::string, std::string> create_errors_;               // plugin name -> reason
  std::unique_ptr<AuditLog> audit_;  // after the store: it writes its refusals at its end
  std::unique_ptr<CellService> cells_;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<AuthService> auth_;
  std::unique_ptr<SessionStore> sessions_;
  std::unique_ptr<AgentService> agents_;
  std::unique_ptr<limits::Limits> limits_;  // before runs_: their admissions point into it
  std::unique_ptr<RunService> runs_;
  std::unique_ptr<MemoryService> memory_;
  std::unique_ptr<ToolServers> tool_servers_;
  std::unique_ptr<ToolServerAdmin> tool_server_admin_;  // over tool_servers_
  std::chrono::steady_clock::time_point started_;
};

}  // namespace agentrt::core
