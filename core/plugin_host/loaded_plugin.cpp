#include "core/plugin_host/loaded_plugin.h"

#include "core/log/logger.h"
#include "core/metrics/metrics.h"
#include "core/plugin_host/host_api.h"

#include <boost/dll/shared_library.hpp>

namespace agentrt::core {

const char* plugin_kind_name(uint32_t kind) {
  switch (kind) {
    case AGENTRT_KIND_PROVIDER:
      return "provider";
    case AGENTRT_KIND_MEMORY_BACKEND:
      return "memory_backend";
    case AGENTRT_KIND_AUTH:
      return "auth";
    case AGENTRT_KIND_TOOL:
      return "tool";
    default:
      return "unknown";
  }
}

LoadedPlugin::LoadedPlugin(std::shared_ptr<boost::dll::shared_library> library, std::string path,
                           const agentrt_plugin_descriptor_t& descriptor)
    : library_(std::move(library)),
      path_(std::move(path)),
      name_(descriptor.name),
      version_(descriptor.version),
      kind_(descriptor.kind),
      abi_major_(descriptor.abi_major),
      abi_minor_(descriptor.abi_minor),
      flags_(descriptor.flags),
      host_(std::make_unique<HostContext>(name_)) {}

LoadedPlugin::~LoadedPlugin() = default;

const agentrt_host_api_t* LoadedPlugin::host_api() const {
  return &host_->api;
}

agentrt_create_fn LoadedPlugin::create_fn() const {
  if (kind_ == AGENTRT_KIND_PROVIDER) return provider_.create;
  if (kind_ == AGENTRT_KIND_MEMORY_BACKEND) return memory_.create;
  if (kind_ == AGENTRT_KIND_TOOL) return tool_.create;
  return auth_.create;
}

agentrt_destroy_fn LoadedPlugin::destroy_fn() const {
  if (kind_ == AGENTRT_KIND_PROVIDER) return provider_.destroy;
  if (kind_ == AGENTRT_KIND_MEMORY_BACKEND) return memory_.destroy;
  if (kind_ == AGENTRT_KIND_TOOL) return tool_.destroy;
  return auth_.destroy;
}

PluginInstance::PluginInstance(std::shared_ptr<const LoadedPlugin> plugin,
                               const std::string& config_json,
                               std::shared_ptr<const SecretFence> fence)
    : plugin_(std::move(plugin)) {
  if (fence) fenced_host_ = std::make_unique<HostContext>(plugin_->name(), std::move(fence));
  const agentrt_host_api_t* host = fenced_host_ ? &fenced_host_->api : plugin_->host_api();
  agentrt_create_fn create = plugin_->create_fn();
  agentrt_error_t error = make_error_struct();
  int32_t rc = AGENTRT_ERR_INTERNAL;
  try {
    rc = create(host, config_json.data(), config_json.size(), &instance_, &error);
  } catch (...) {
    // A plugin not built with the SDK's C++ layer may let an exception escape.
    throw PluginError(AGENTRT_ERR_INTERNAL, "create threw an exception across the C boundary");
  }
  if (rc != AGENTRT_OK) {
    throw PluginError(rc, "create failed: " + error_message(error, "no message"));
  }
  if (instance_ == nullptr) throw PluginError(AGENTRT_ERR_INTERNAL, "create returned no instance");
}

PluginInstance::~PluginInstance() {
  agentrt_destroy_fn destroy = plugin_->destroy_fn();
  try {
    destroy(instance_);
  } catch (...) {  // nothing may escape a destructor; the plugin broke the ABI here
  }
}

void PluginInstance::invoke(const std::function<int32_t(void*, agentrt_error_t*)>& call) const {
  agentrt_error_t error = make_error_struct();
  int32_t rc = AGENTRT_ERR_INTERNAL;
  try {
    std::unique_lock<std::mutex> lock(serial_, std::defer_lock);
    if (!plugin_->thread_safe()) lock.lock();
    rc = call(instance_, &error);
  } catch (const PluginError&) {
    throw;
  } catch (...) {
    if (auto* metrics = metrics::active())
      metrics->plugin_failed(plugin_->name(), AGENTRT_ERR_INTERNAL);
    throw PluginError(AGENTRT_ERR_INTERNAL,
                      "plugin '" + plugin_->name() + "' threw across the C boundary");
  }
  if (rc == AGENTRT_OK) return;
  if (auto* metrics = metrics::active()) metrics->plugin_failed(plugin_->name(), rc);
  throw PluginError(rc, error_message(error, "plugin call failed"), error.http_status,
                    error.retry_after_ms);
}

std::string PluginInstance::call_json(agentrt_json_call_fn fn, std::string_view request) const {
  agentrt_output_t out;
  const uint64_t trips_before = faults_.trips();
  try {
    invoke([&](void* instance, agentrt_error_t* error) {
      return fn(instance, request.data(), request.size(), &out, error);
    });
  } catch (const PluginError& e) {
    const bool store_failed = e.code == AGENTRT_ERR_INTERNAL || e.code == AGENTRT_ERR_UNAVAILABLE ||
                              e.code == AGENTRT_ERR_TIMEOUT;
    if (store_failed && is_store()) faults_.trip();
    throw;
  }
  if (probe_fn() == nullptr) faults_.passed(trips_before);
  return std::move(out.data);
}

bool PluginInstance::is_store() const {
  return plugin_->kind() == AGENTRT_KIND_MEMORY_BACKEND || plugin_->kind() == AGENTRT_KIND_AUTH;
}

agentrt_json_call_fn PluginInstance::probe_fn() const {
  if (no_probe_.load(std::memory_order_relaxed)) return nullptr;
  if (plugin_->kind() == AGENTRT_KIND_MEMORY_BACKEND) return plugin_->memory_table().probe;
  if (plugin_->kind() == AGENTRT_KIND_AUTH) return plugin_->auth_table().probe;
  if (plugin_->kind() == AGENTRT_KIND_TOOL) return plugin_->tool_table().probe;
  return nullptr;
}

bool PluginInstance::usable() const {
  return faults_.usable([this] {
    agentrt_json_call_fn probe = probe_fn();
    if (probe == nullptr) return false;  // cleared by the next call that succeeds
    try {
      call_json(probe, "{}");
      return true;
    } catch (const PluginError& e) {
      if (e.code == AGENTRT_ERR_UNSUPPORTED) {  // the C++ layer's default: no probe after all
        no_probe_.store(true, std::memory_order_relaxed);
        return false;
      }
      log_error("store still failing",
                {{"plugin", plugin_->name()}, {"code", e.code}, {"error", e.what()}});
      return false;
    }
  });
}

}  // namespace agentrt::core
