// A tool plugin's instance (ABI 1.9): one tool server. Its list of tools, its calls,
// and whether its server answers.
#pragma once

#include "core/plugin_host/cancel_waker.h"
#include "core/plugin_host/loaded_plugin.h"

#include <functional>
#include <string>
#include <string_view>

namespace agentrt::core {

class ToolInstance : public PluginInstance {
 public:
  using PluginInstance::PluginInstance;

  // {"tools":[{"name","description"?,"parameters"}]} as the plugin wrote it.
  std::string list_tools() const;

  // Runs one call, blocking: the result's text arrives as AGENTRT_DELTA_TEXT and a
  // failure the tool reports as AGENTRT_DELTA_FINISH {"is_error":true} through
  // `on_delta`, which returns false to stop the call; `cancelled` is polled by the
  // plugin or checked when it is woken through `waker`. Throws PluginError when the
  // tool could not be run (AGENTRT_ERR_CANCELLED when stopped).
  void call(std::string_view request_json,
            const std::function<bool(const ProviderDelta&)>& on_delta,
            const std::function<bool()>& cancelled, CancelWaker* waker = nullptr) const;

  // The plugin's probe: true when it passes, or when the plugin has none.
  bool answers(std::string* why) const;
};

}  // namespace agentrt::core
