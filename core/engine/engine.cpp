#include "core/engine/engine.h"

#include "core/log/logger.h"

namespace agentrt::core {

Engine::Engine(Config config, std::vector<std::string> plugin_dirs)
    : config_(std::move(config)),
      plugin_dirs_(std::move(plugin_dirs)),
      started_(std::chrono::steady_clock::now()) {}

Engine::~Engine() {
  // Instances go before the host that holds their libraries' descriptors.
  providers_.clear();
  others_.clear();
}

void Engine::start() {
  started_ = std::chrono::steady_clock::now();
  store_ = std::make_unique<StateStore>(config_.data_dir);
  log_info("state store open",
           {{"path", store_->path()}, {"schema_version", store_->schema_version()}});
  host_.scan(plugin_dirs_);
  create_instances();
}

void Engine::create_instances() {
  for (const auto& [name, plugin_config] : config_.plugins) {
    if (!plugin_config.enabled) continue;
    auto plugin = host_.find(name);
    if (!plugin) {
      create_errors_[name] = "enabled in the config but not found in the plugin directories";
      log_error("plugin not available", {{"name", name}, {"reason", create_errors_[name]}});
      continue;
    }
    try {
      const std::string json = plugin_config.config.dump();
      if (plugin->kind() == AGENTRT_KIND_PROVIDER)
        providers_[name] = std::make_shared<ProviderInstance>(plugin, json);
      else
        others_[name] = std::make_shared<PluginInstance>(plugin, json);
    } catch (const PluginError& e) {
      create_errors_[name] = e.what();
      log_error("plugin refused",
                {{"name", name}, {"path", plugin->path()}, {"reason", create_errors_[name]}});
    }
  }
}

HealthReport Engine::health() const {
  HealthReport report;
  report.storage_ok = store_ && store_->healthy();
  report.uptime_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  for (const auto& plugin : host_.plugins()) {
    if (create_errors_.count(plugin->name())) continue;
    report.plugins.push_back({plugin->name(), plugin_kind_name(plugin->kind()), plugin->version()});
  }
  return report;
}

std::vector<PluginStatus> Engine::plugin_statuses() const {
  if (store_) return fold_create_errors(host_.statuses(), create_errors_);
  // Not started: discover and create on a private host, as start() would.
  Engine probe(config_, plugin_dirs_);
  probe.host_.scan(plugin_dirs_);
  probe.create_instances();
  return fold_create_errors(probe.host_.statuses(), probe.create_errors_);
}

std::vector<PluginStatus> Engine::fold_create_errors(
    std::vector<PluginStatus> statuses, const std::map<std::string, std::string>& errors) {
  for (PluginStatus& status : statuses) {
    auto it = status.loaded ? errors.find(status.name) : errors.end();
    if (it == errors.end()) continue;
    status.loaded = false;
    status.error = it->second;
  }
  return statuses;
}

std::shared_ptr<ProviderInstance> Engine::provider(const std::string& plugin_name) const {
  auto it = providers_.find(plugin_name);
  return it == providers_.end() ? nullptr : it->second;
}

}  // namespace agentrt::core
