// A provider instance's calls: the model list, and completions through the plugin's
// blocking `complete` or, when it offers one (ABI 1.2), its `complete_async`, which
// runs the call on the plugin's own threads while the caller waits for its end.
#include "core/plugin_host/host_api.h"
#include "core/plugin_host/loaded_plugin.h"
#include "core/plugin_host/sink_call.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>

namespace agentrt::core {

std::string ProviderInstance::list_models() const {
  agentrt_output_t out;
  invoke([&](void* instance, agentrt_error_t* error) {
    return plugin().provider_table().list_models(instance, &out, error);
  });
  return std::move(out.data);
}

namespace {

using sink_call::failing_on_fault;
using sink_call::make_sink;
using sink_call::SinkState;
using sink_call::WakerReset;

// An asynchronous call's end, handed over from the plugin's thread by `done`.
struct AsyncEnd {
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  int32_t status = AGENTRT_OK;
  agentrt_error_t error = make_error_struct();
};

struct AsyncSinkState : SinkState {
  AsyncEnd end;
};

// The waiting thread may free the sink as soon as `done` is set: everything here is
// finished under the lock, and nothing of the sink is touched after it.
void sink_done(agentrt_sink_t* sink, int32_t status, const agentrt_error_t* error) noexcept {
  AsyncEnd& end = static_cast<AsyncSinkState*>(sink->ctx)->end;
  std::lock_guard<std::mutex> lock(end.mutex);
  end.status = status;
  if (status != AGENTRT_OK && error != nullptr) {
    // Only what the plugin's struct covers; the message always ends in a NUL.
    const size_t n = std::min<size_t>(error->struct_size, sizeof end.error);
    std::memcpy(&end.error, error, n);
    end.error.struct_size = sizeof end.error;
    end.error.message[sizeof end.error.message - 1] = '\0';
  }
  end.done = true;
  end.ended.notify_one();
}

}  // namespace

bool ProviderInstance::runs_async() const {
  return !blocking_only_ && plugin().provider_table().complete_async != nullptr &&
         !async_declined_.load(std::memory_order_relaxed);
}

bool ProviderInstance::complete_async(std::string_view request_json, void* state_ptr,
                                      const std::function<void()>* meanwhile) const {
  auto& state = *static_cast<AsyncSinkState*>(state_ptr);
  agentrt_sink_t sink = make_sink(state);
  sink.done = &sink_done;
  bool declined = false;
  invoke([&](void* instance, agentrt_error_t* error) {
    int32_t rc = plugin().provider_table().complete_async(instance, request_json.data(),
                                                          request_json.size(), &sink, error);
    if (rc == AGENTRT_ERR_UNSUPPORTED) {
      declined = true;
      return AGENTRT_OK;
    }
    if (rc != AGENTRT_OK) return rc;
    // Started: the sink lives in this frame, so this thread waits for `done` however
    // long the call takes. A plugin that is not thread-safe keeps its lock meanwhile.
    if (meanwhile) (*meanwhile)();
    std::unique_lock<std::mutex> lock(state.end.mutex);
    state.end.ended.wait(lock, [&] { return state.end.done; });
    *error = state.end.error;
    return state.end.status;
  });
  if (declined) async_declined_.store(true, std::memory_order_relaxed);
  return !declined;
}

void ProviderInstance::complete(std::string_view request_json,
                                const std::function<bool(const ProviderDelta&)>& on_delta,
                                const std::function<bool()>& cancelled, CancelWaker* waker,
                                CallThread thread, const std::function<void()>* meanwhile) const {
  WakerReset reset{waker};
  if (thread == CallThread::plugin && runs_async()) {
    AsyncSinkState state;
    state.on_delta = &on_delta;
    state.cancelled = &cancelled;
    state.waker = waker;
    bool ran = false;
    failing_on_fault(state, [&] { ran = complete_async(request_json, &state, meanwhile); });
    if (ran) return;
  }
  if (!meanwhile) return complete_blocking(request_json, on_delta, cancelled, waker);
  // `meanwhile` runs at the call's first sign of life, a delta or a poll, not before
  // it: a plugin that refuses the request (AGENTRT_ERR_REFUSED) shows none, and what
  // waits for a call to be under way (a stream's start, stored) then never happens.
  bool under_way = false;
  auto sign_of_life = [&] {
    if (under_way) return;
    under_way = true;
    (*meanwhile)();
  };
  complete_blocking(
      request_json,
      [&](const ProviderDelta& d) {
        sign_of_life();
        return on_delta(d);
      },
      [&] {
        sign_of_life();
        return cancelled();
      },
      waker);
}

void ProviderInstance::complete_blocking(std::string_view request_json,
                                         const std::function<bool(const ProviderDelta&)>& on_delta,
                                         const std::function<bool()>& cancelled,
                                         CancelWaker* waker) const {
  SinkState state{&on_delta, &cancelled, waker};
  agentrt_sink_t sink = make_sink(state);
  failing_on_fault(state, [&] {
    invoke([&](void* instance, agentrt_error_t* error) {
      return plugin().provider_table().complete(instance, request_json.data(), request_json.size(),
                                                &sink, error);
    });
  });
}

}  // namespace agentrt::core
