#include "core/plugin_host/tool_instance.h"

#include "core/plugin_host/host_api.h"
#include "core/plugin_host/sink_call.h"

namespace agentrt::core {

std::string ToolInstance::list_tools() const {
  agentrt_output_t out;
  invoke([&](void* instance, agentrt_error_t* error) {
    return plugin().tool_table().list_tools(instance, &out, error);
  });
  return std::move(out.data);
}

void ToolInstance::call(std::string_view request_json,
                        const std::function<bool(const ProviderDelta&)>& on_delta,
                        const std::function<bool()>& cancelled, CancelWaker* waker) const {
  sink_call::WakerReset reset{waker};
  sink_call::SinkState state{&on_delta, &cancelled, waker};
  agentrt_sink_t sink = sink_call::make_sink(state);
  sink_call::failing_on_fault(state, [&] {
    invoke([&](void* instance, agentrt_error_t* error) {
      return plugin().tool_table().call(instance, request_json.data(), request_json.size(), &sink,
                                        error);
    });
  });
}

bool ToolInstance::answers(std::string* why) const {
  agentrt_json_call_fn probe = plugin().tool_table().probe;
  if (probe == nullptr) return true;
  try {
    call_json(probe, "{}");
    return true;
  } catch (const PluginError& e) {
    if (e.code == AGENTRT_ERR_UNSUPPORTED) return true;
    if (why) *why = e.what();
    return false;
  }
}

}  // namespace agentrt::core
