// The sink a blocking plugin call reports into (provider completions, tool calls):
// deltas handed to the caller's function, cancellation asked of the caller, a waker
// registered (ABI 1.1), and a plugin's breach of the sink's contract turned into the
// call's error.
#pragma once

#include "core/plugin_host/cancel_waker.h"
#include "core/plugin_host/loaded_plugin.h"

#include <agentrt/agentrt_plugin.h>

#include <functional>

namespace agentrt::core::sink_call {

struct SinkState {
  const std::function<bool(const ProviderDelta&)>* on_delta;
  const std::function<bool()>* cancelled;
  CancelWaker* waker;
  // Set when the plugin broke the sink's contract: the call then fails with it,
  // whatever the plugin returns.
  const char* fault = nullptr;
};

agentrt_sink_t make_sink(SinkState& state);

// Runs the call; a fault the sink saw is the call's error, before whatever the plugin
// made of being stopped.
template <class Call>
void failing_on_fault(const SinkState& state, Call&& call) {
  try {
    call();
  } catch (const PluginError&) {
    if (!state.fault) throw;
  }
  if (state.fault) throw PluginError(AGENTRT_ERR_INTERNAL, state.fault);
}

// Unregisters whatever the plugin left registered, so the waker never calls into a
// call that has returned.
struct WakerReset {
  CancelWaker* waker;
  ~WakerReset() {
    if (waker) waker->set(nullptr, nullptr);
  }
};

}  // namespace agentrt::core::sink_call
