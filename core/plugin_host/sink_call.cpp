#include "core/plugin_host/sink_call.h"

namespace agentrt::core::sink_call {
namespace {

int32_t sink_emit(agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) noexcept {
  auto* state = static_cast<SinkState*>(sink->ctx);
  if (data == nullptr && len > 0) {
    // Read as it stands, it would hand on `len` bytes of whatever lies at address 0's
    // stand-in: the host's own memory.
    state->fault = "the plugin emitted a delta with a length and no data";
    return 1;
  }
  try {
    return (*state->on_delta)(ProviderDelta{kind, std::string_view(data ? data : "", len)}) ? 0 : 1;
  } catch (...) {
    return 1;  // the host side failed: stop the call rather than lose deltas silently
  }
}

int32_t sink_is_cancelled(const agentrt_sink_t* sink) noexcept {
  auto* state = static_cast<const SinkState*>(sink->ctx);
  try {
    return (*state->cancelled)() ? 1 : 0;
  } catch (...) {
    return 1;
  }
}

int32_t sink_set_waker(agentrt_sink_t* sink, void (*wake)(void*), void* wake_ctx) noexcept {
  auto* state = static_cast<SinkState*>(sink->ctx);
  if (state->waker == nullptr) return AGENTRT_ERR_UNSUPPORTED;
  state->waker->set(wake, wake_ctx);
  return AGENTRT_OK;
}

}  // namespace

agentrt_sink_t make_sink(SinkState& state) {
  agentrt_sink_t sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &state;
  sink.emit = &sink_emit;
  sink.is_cancelled = &sink_is_cancelled;
  sink.set_waker = &sink_set_waker;
  return sink;
}

}  // namespace agentrt::core::sink_call
