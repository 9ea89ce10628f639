#include "core/runs/provider_call.h"

#include "core/domain/ids.h"
#include "core/log/logger.h"
#include "core/runs/delta_fields.h"
#include "text/utf8.h"

#include <optional>
#include <random>
#include <thread>

namespace agentrt::core {
namespace {

// Sleeps up to `wait` in short steps; false when cancelled meanwhile.
bool wait_unless_cancelled(std::chrono::milliseconds wait, const std::function<bool()>& cancelled) {
  auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    if (cancelled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !cancelled();
}

std::chrono::milliseconds backoff(const CallPolicy& policy, int attempt, uint32_t retry_after_ms) {
  if (retry_after_ms > 0) return std::chrono::milliseconds(retry_after_ms);
  thread_local std::minstd_rand jitter(std::random_device{}());
  auto base = policy.first_backoff * (1 << std::min(attempt, 6));
  return base + std::chrono::milliseconds(jitter() % (base.count() / 2 + 1));
}

void take_delta(const ProviderDelta& delta, ProviderResult& result) {
  DeltaFields fields = read_delta_fields(delta.data);
  if (delta.kind == AGENTRT_DELTA_USAGE) {
    // A count below zero is no count: the run keeps its estimate or the plugin's last
    // sound one.
    if (fields.input_tokens && *fields.input_tokens >= 0) result.input_tokens = fields.input_tokens;
    if (fields.output_tokens && *fields.output_tokens >= 0)
      result.output_tokens = fields.output_tokens;
  } else if (delta.kind == AGENTRT_DELTA_FINISH && fields.reason) {
    result.finish_reason = std::move(*fields.reason);
  }
}

}  // namespace

std::string error_code_for(int32_t abi_code) {
  switch (abi_code) {
    case AGENTRT_ERR_UNAVAILABLE:
      return "provider_unavailable";
    case AGENTRT_ERR_TIMEOUT:
      return "provider_timeout";
    case AGENTRT_ERR_INTERNAL:
      return "internal";
    default:
      return "provider_error";
  }
}

namespace {

// Why a call was ended by this side: the client went away, or a limit was passed.
struct CallStop {
  bool by_us = false;
  bool too_long = false;    // limits.max_answer_bytes
  bool too_late = false;    // limits.max_answer_ms
  uint64_t call_bytes = 0;  // the tool calls' arguments, which count against the limit too
  std::chrono::steady_clock::time_point deadline;

  bool passed_deadline() {
    if (!too_late && std::chrono::steady_clock::now() >= deadline) too_late = by_us = true;
    return too_late;
  }
};

// Fills in the failure for a limit the call passed; false when it passed none.
bool fail_for_limit(ProviderResult& result, const CallStop& stop, const CallPolicy& policy) {
  if (!stop.too_long && !stop.too_late) return false;
  result.end = ProviderResult::End::failed;
  if (stop.too_long) {
    result.error_code = "provider_error";
    result.error_message = "the answer grew past limits.max_answer_bytes (" +
                           std::to_string(policy.max_answer_bytes) + " bytes) and was cut there";
  } else {
    result.error_code = "provider_timeout";
    result.error_message = "the answer took longer than limits.max_answer_ms (" +
                           std::to_string(policy.max_answer_time.count()) +
                           " ms) and was cut there";
  }
  return true;
}

// A call as the run keeps it: a call without a name is no call; one without an id, or
// with one the call already gave another, gets an id made here (the session's answers
// name it); no arguments read as an empty object.
std::optional<ToolCall> tool_call_of(const ProviderDelta& delta, const ProviderResult& result) {
  DeltaFields fields = read_delta_fields(delta.data);
  if (!fields.name || fields.name->empty()) return std::nullopt;
  ToolCall call{fields.id.value_or(""), std::move(*fields.name), fields.arguments.value_or("")};
  bool taken = call.id.empty() || call.id.size() > 256;
  for (const ToolCall& earlier : result.tool_calls) taken = taken || earlier.id == call.id;
  if (taken) call.id = new_id("call");
  if (call.arguments.empty()) call.arguments = "{}";
  return call;
}

// The delta sink of one attempt: keeps the text within its byte limit and hands it on.
bool take_text(const ProviderDelta& delta, const CallPolicy& policy, CallStop& stop,
               ProviderResult& result, const std::function<bool(std::string_view)>& on_text,
               const std::function<bool(const ToolCall&)>* on_tool_call) {
  // A plugin that goes on after it was told to stop gets nothing more stored or sent;
  // its usage still counts.
  const bool answer = delta.kind == AGENTRT_DELTA_TEXT || delta.kind == AGENTRT_DELTA_TOOL_CALL;
  if (stop.by_us && answer) return false;
  if (delta.kind == AGENTRT_DELTA_TOOL_CALL) {
    std::optional<ToolCall> call = tool_call_of(delta, result);
    if (!call || !on_tool_call) return !stop.passed_deadline();
    stop.call_bytes += call->arguments.size();
    if (result.text.size() + stop.call_bytes > policy.max_answer_bytes) {
      stop.too_long = stop.by_us = true;
      return false;
    }
    result.tool_calls.push_back(std::move(*call));
    if (!(*on_tool_call)(result.tool_calls.back())) stop.by_us = true;
    return !stop.by_us && !stop.passed_deadline();
  }
  if (!answer) {
    take_delta(delta, result);
    return true;
  }
  if (delta.data.empty()) return !stop.passed_deadline();
  std::string_view text = delta.data;
  if (result.text.size() + stop.call_bytes + text.size() > policy.max_answer_bytes) {
    const uint64_t used = result.text.size() + stop.call_bytes;
    text = text::utf8_prefix(text,
                             used < policy.max_answer_bytes ? policy.max_answer_bytes - used : 0);
    stop.too_long = stop.by_us = true;
  }
  result.text.append(text);
  if (!text.empty() && !on_text(text)) stop.by_us = true;
  return !stop.by_us && !stop.passed_deadline();
}

}  // namespace

ProviderResult call_provider(const ProviderInstance& provider, const std::string& request_json,
                             const CallPolicy& policy,
                             const std::function<bool(std::string_view)>& on_text,
                             const std::function<bool()>& cancelled, CancelWaker* waker,
                             CallThread thread, const std::function<void()>* meanwhile,
                             const std::function<bool(const ToolCall&)>* on_tool_call) {
  ProviderResult result;
  CallStop stop;
  stop.deadline = std::chrono::steady_clock::now() + policy.max_answer_time;
  const std::function<bool()> ended = [&] {
    return stop.by_us || stop.passed_deadline() || cancelled();
  };
  for (unsigned attempt = 0;; ++attempt) {
    ++result.attempts;
    try {
      provider.complete(
          request_json,
          [&](const ProviderDelta& delta) {
            return take_text(delta, policy, stop, result, on_text, on_tool_call);
          },
          ended, waker, thread, meanwhile);
      if (fail_for_limit(result, stop, policy)) return result;
      // Told to stop, it finished all the same: the answer is what came before the stop.
      result.end = stop.by_us ? ProviderResult::End::cancelled : ProviderResult::End::completed;
      return result;
    } catch (const PluginError& e) {
      if (fail_for_limit(result, stop, policy)) return result;
      const bool nothing_sent = result.text.empty() && result.tool_calls.empty();
      if (e.code == AGENTRT_ERR_REFUSED && nothing_sent) {
        result.end = ProviderResult::End::failed;
        result.refused = true;
        result.error_code = "provider_error";
        result.error_message = e.what();
        return result;
      }
      if (e.code == AGENTRT_ERR_CANCELLED || stop.by_us || cancelled()) {
        result.end = ProviderResult::End::cancelled;
        return result;
      }
      const auto wait = backoff(policy, static_cast<int>(attempt), e.retry_after_ms);
      // A retry that could not begin before the deadline is not waited for: the
      // upstream's own failure says more than a timeout would.
      const bool retryable = e.code == AGENTRT_ERR_UNAVAILABLE && nothing_sent &&
                             attempt < policy.max_retries &&
                             std::chrono::milliseconds(e.retry_after_ms) <= policy.max_wait &&
                             std::chrono::steady_clock::now() + wait < stop.deadline;
      if (retryable) {
        // Nothing is under way during the wait: whatever waits for a call to be under
        // way (a stream's start, and its first events) waits no longer.
        if (meanwhile) (*meanwhile)();
        log_info(
            "provider call retried",
            {{"attempt", attempt + 1}, {"http_status", e.http_status}, {"wait_ms", wait.count()}});
        if (wait_unless_cancelled(wait, ended)) continue;
        if (fail_for_limit(result, stop, policy)) return result;
        result.end = ProviderResult::End::cancelled;
        return result;
      }
      result.end = ProviderResult::End::failed;
      result.error_code = error_code_for(e.code);
      result.error_message = e.what();
      result.retry_after_ms = e.retry_after_ms;
      result.upstream_status = e.http_status;
      return result;
    }
  }
}

}  // namespace agentrt::core
