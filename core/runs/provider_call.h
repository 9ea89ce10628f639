// One completion through a provider instance, with the engine's retry policy: a 429 or
// 5xx (AGENTRT_ERR_UNAVAILABLE) before the first text delta is retried with backoff,
// honouring the upstream's Retry-After, up to a limit; after the first delta nothing is
// retried, because the client has already seen part of an answer.
#pragma once

#include "core/plugin_host/loaded_plugin.h"
#include "core/runs/tool_spec.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

struct CallPolicy {
  // An answer that grows past this is cut there (at a character's end) and the call
  // fails with provider_error: what an upstream sends must fit memory and a row.
  uint64_t max_answer_bytes = 8 * 1024 * 1024;
  // A call (its retries and their waits included) still under way this long after it
  // began is ended and fails with provider_timeout: the stall timeout never fires for
  // an upstream that trickles bytes, and such an upstream would hold a run for good.
  std::chrono::milliseconds max_answer_time{600000};
  unsigned max_retries = 2;
  std::chrono::milliseconds first_backoff{250};
  std::chrono::milliseconds max_wait{20000};  // a longer Retry-After is not waited for
};

struct ProviderResult {
  enum class End { completed, cancelled, failed };
  End end = End::completed;
  std::string text;                                    // everything the provider streamed
  std::vector<ToolCall> tool_calls;                    // the model's, complete, in order
  std::optional<int64_t> input_tokens, output_tokens;  // as the provider reported them
  std::string finish_reason = "end_turn";
  std::string error_code;     // provider_error | provider_unavailable | provider_timeout | internal
  std::string error_message;  // the plugin's; never carries a secret
  // The plugin refused the request before sending anything (AGENTRT_ERR_REFUSED): the
  // client's request is at fault, and nothing of the run should be stored.
  bool refused = false;
  uint32_t retry_after_ms = 0;  // the upstream's, when it failed saying when to try again
  int32_t upstream_status = 0;  // the upstream's HTTP status, when it failed with one
  int attempts = 0;
};

// `on_text` returns false to stop (the client went away), and `on_tool_call`, when set,
// alike for each complete tool call (its id the vendor's, else one made here, unique in
// the call); `cancelled` is polled by the
// plugin, at least every 100 ms while the upstream is silent (once a second for a
// plugin with a waker), and the call's deadline is checked there and at each delta. `meanwhile` is
// handed to each attempt (ProviderInstance::complete) and run before a retry's wait, so it must
// tolerate running more than once.
ProviderResult call_provider(const ProviderInstance& provider, const std::string& request_json,
                             const CallPolicy& policy,
                             const std::function<bool(std::string_view)>& on_text,
                             const std::function<bool()>& cancelled, CancelWaker* waker = nullptr,
                             CallThread thread = CallThread::plugin,
                             const std::function<void()>* meanwhile = nullptr,
                             const std::function<bool(const ToolCall&)>* on_tool_call = nullptr);

// The event/HTTP error code for an ABI status code.
std::string error_code_for(int32_t abi_code);

}  // namespace agentrt::core
