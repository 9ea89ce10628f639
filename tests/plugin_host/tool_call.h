// One call of a tool plugin's instance, as a test sees it: the result's text, whether
// the tool reported a failure, or the error that kept it from running.
#pragma once

#include "core/plugin_host/tool_instance.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace agentrt::test {

struct ToolCallResult {
  std::string text;
  bool is_error = false;
  std::optional<core::PluginError> error;
};

inline ToolCallResult call_tool(
    const core::ToolInstance& tools, const std::string& name, const nlohmann::json& arguments,
    const std::function<bool()>& cancelled = [] { return false; },
    core::CancelWaker* waker = nullptr, size_t max_output_bytes = 100000) {
  ToolCallResult r;
  const nlohmann::json request = {{"name", name},
                                  {"arguments", arguments},
                                  {"call_id", "c1"},
                                  {"max_output_bytes", max_output_bytes}};
  try {
    tools.call(
        request.dump(),
        [&](const core::ProviderDelta& d) {
          if (d.kind == AGENTRT_DELTA_TEXT) r.text.append(d.data);
          if (d.kind == AGENTRT_DELTA_FINISH)
            r.is_error = nlohmann::json::parse(d.data).value("is_error", false);
          return true;
        },
        cancelled, waker);
  } catch (const core::PluginError& e) {
    r.error = e;
  }
  return r;
}

}  // namespace agentrt::test
