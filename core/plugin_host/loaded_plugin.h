// A plugin library that passed every check, and the instances made from it. Each
// instance holds the library, so it stays mapped while any instance lives.
#pragma once

#include <agentrt/agentrt_plugin.h>
#include "core/domain/fault_latch.h"
#include "core/domain/secret_ref.h"
#include "core/plugin_host/cancel_waker.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace boost::dll {
class shared_library;
}

namespace agentrt::core {

const char* plugin_kind_name(uint32_t kind);

// A failed plugin call: the ABI status code and the plugin's message.
class PluginError : public std::runtime_error {
 public:
  PluginError(int32_t code, const std::string& message, int32_t http_status = 0,
              uint32_t retry_after_ms = 0)
      : std::runtime_error(message),
        code(code),
        http_status(http_status),
        retry_after_ms(retry_after_ms) {}
  int32_t code;
  int32_t http_status;
  uint32_t retry_after_ms;
};

struct HostContext;  // the host's side of agentrt_host_api_t, one per plugin

class LoadedPlugin : public std::enable_shared_from_this<LoadedPlugin> {
 public:
  LoadedPlugin(std::shared_ptr<boost::dll::shared_library> library, std::string path,
               const agentrt_plugin_descriptor_t& descriptor);
  ~LoadedPlugin();

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& path() const { return path_; }
  uint32_t kind() const { return kind_; }
  uint16_t abi_major() const { return abi_major_; }
  uint16_t abi_minor() const { return abi_minor_; }
  bool thread_safe() const { return (flags_ & AGENTRT_FLAG_THREAD_SAFE) != 0; }

  // Zero-filled host copies of the plugin's table: fields the plugin's struct_size
  // does not cover stay NULL. Only the one matching kind() is meaningful.
  const agentrt_provider_vtable_t& provider_table() const { return provider_; }
  const agentrt_memory_vtable_t& memory_table() const { return memory_; }
  const agentrt_auth_vtable_t& auth_table() const { return auth_; }
  const agentrt_tool_vtable_t& tool_table() const { return tool_; }

  const agentrt_host_api_t* host_api() const;
  agentrt_create_fn create_fn() const;    // the create of the table of kind()
  agentrt_destroy_fn destroy_fn() const;  // the destroy of the table of kind()

 private:
  friend class PluginHost;
  std::shared_ptr<boost::dll::shared_library> library_;
  std::string path_, name_, version_;
  uint32_t kind_ = 0;
  uint16_t abi_major_ = 0, abi_minor_ = 0;
  uint64_t flags_ = 0;
  agentrt_provider_vtable_t provider_{};
  agentrt_memory_vtable_t memory_{};
  agentrt_auth_vtable_t auth_{};
  agentrt_tool_vtable_t tool_{};
  std::unique_ptr<HostContext> host_;
};

// One instance made by a plugin's create; destroyed through the plugin's destroy.
// Calls into an instance whose plugin is not thread-safe are serialised here.
class PluginInstance {
 public:
  // Calls the plugin's create; throws PluginError (also for a create that throws). With
  // a `fence` (references the admin API wrote), the instance gets a host table of its
  // own whose secret lookups resolve only what the fence lets through.
  PluginInstance(std::shared_ptr<const LoadedPlugin> plugin, const std::string& config_json,
                 std::shared_ptr<const SecretFence> fence = nullptr);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const LoadedPlugin& plugin() const { return *plugin_; }

  // Runs `call(instance, error)` under the instance's lock when needed; throws
  // PluginError when it returns non-zero.
  void invoke(const std::function<int32_t(void*, agentrt_error_t*)>& call) const;

  // A JSON call through `fn` with the host collecting the output. For a store (memory
  // backend, auth), a failure of the store (INTERNAL, UNAVAILABLE, TIMEOUT) is
  // remembered for usable().
  std::string call_json(agentrt_json_call_fn fn, std::string_view request) const;

  // For GET /health: false while the instance is a store whose calls failed and whose
  // probe (ABI 1.5) has not passed since; without a probe, until a call succeeded.
  bool usable() const;

 private:
  agentrt_json_call_fn probe_fn() const;
  bool is_store() const;

  std::shared_ptr<const LoadedPlugin> plugin_;
  // Before instance_: it outlives the plugin's destroy, which may still look a secret up.
  std::unique_ptr<HostContext> fenced_host_;
  void* instance_ = nullptr;
  mutable std::mutex serial_;
  mutable FaultLatch faults_;
  mutable std::atomic<bool> no_probe_{false};  // the probe answered UNSUPPORTED
};

// Providers: the typed face of a provider instance.
struct ProviderDelta {
  uint32_t kind;
  std::string_view data;
};
// Which thread runs a completion when the plugin offers complete_async (ABI 1.2).
enum class CallThread {
  plugin,  // the plugin's own: one of its threads serves many streams
  caller,  // the caller's, through the blocking complete: one hand-off fewer
};

class ProviderInstance : public PluginInstance {
 public:
  using PluginInstance::PluginInstance;
  std::string list_models() const;
  // Blocks; `on_delta` returns false to stop; `cancelled` is polled by the plugin, or,
  // when the plugin registers with `waker` (ABI 1.1), checked when woken through it.
  // When the plugin offers complete_async (ABI 1.2), the call runs on the plugin's
  // threads while this one waits for its end: `on_delta` and `cancelled` are then
  // called from a plugin thread (one at a time), so they must not block.
  // `meanwhile`, when set, is run by this thread while the call is under way on the
  // plugin's threads (after it started, before the wait for its end), or, when the call
  // runs on this thread, at its first delta or poll of `cancelled`; not at all when the
  // call fails to start or the plugin refuses the request. It must not throw.
  void complete(std::string_view request_json,
                const std::function<bool(const ProviderDelta&)>& on_delta,
                const std::function<bool()>& cancelled, CancelWaker* waker = nullptr,
                CallThread thread = CallThread::plugin,
                const std::function<void()>* meanwhile = nullptr) const;

  // Every call through `complete` on the calling thread, even when the plugin could
  // run it on its own: for tests of both paths and for A/B measurements.
  void set_blocking_only(bool blocking_only) { blocking_only_ = blocking_only; }
  bool runs_async() const;

 private:
  // False when the instance declined (AGENTRT_ERR_UNSUPPORTED): complete() then runs.
  bool complete_async(std::string_view request_json, void* state,
                      const std::function<void()>* meanwhile) const;
  // The ABI's blocking `complete`, its sink calling back on this thread.
  void complete_blocking(std::string_view request_json,
                         const std::function<bool(const ProviderDelta&)>& on_delta,
                         const std::function<bool()>& cancelled, CancelWaker* waker) const;

  bool blocking_only_ = false;
  mutable std::atomic<bool> async_declined_{false};
};

}  // namespace agentrt::core
