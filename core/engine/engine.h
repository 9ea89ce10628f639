// The engine: owns the state store, the plugin host and the plugin instances the
// config enables. It knows nothing of HTTP; server/ drives it.
#pragma once

#include "core/config/config.h"
#include "core/plugin_host/plugin_host.h"
#include "core/store/state_store.h"

#include <chrono>
#include <map>
#include <memory>
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

class Engine {
 public:
  // `plugin_dirs`: the bundled directory first, then config.plugin_dirs.
  Engine(Config config, std::vector<std::string> plugin_dirs);
  ~Engine();

  // Opens the store (throws StoreError when it cannot), discovers plugins and creates
  // an instance of every enabled one. A plugin that fails is logged and left out.
  void start();

  const Config& config() const { return config_; }
  HealthReport health() const;

  // Every plugin discovery saw, usable or refused, with creation failures of enabled
  // plugins folded in. Works without start(): it then scans and creates on its own.
  std::vector<PluginStatus> plugin_statuses() const;

  StateStore& store() { return *store_; }
  const PluginHost& plugin_host() const { return host_; }
  std::shared_ptr<ProviderInstance> provider(const std::string& plugin_name) const;

 private:
  void create_instances();
  static std::vector<PluginStatus> fold_create_errors(
      std::vector<PluginStatus> statuses, const std::map<std::string, std::string>& errors);

  Config config_;
  std::vector<std::string> plugin_dirs_;
  PluginHost host_;
  std::unique_ptr<StateStore> store_;
  std::map<std::string, std::shared_ptr<ProviderInstance>> providers_;
  std::map<std::string, std::shared_ptr<PluginInstance>> others_;  // memory backends, auth
  std::map<std::string, std::string> create_errors_;               // plugin name -> reason
  std::chrono::steady_clock::time_point started_;
};

}  // namespace agentrt::core
