#include "core/runs/provider_call.h"

#include "core/log/logger.h"
#include "core/runs/delta_fields.h"

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
    // A count below zero is no count (audit 4a): the run keeps its estimate or the
    // plugin's last sound one.
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

// The longest start of `text` of at most `room` bytes that ends at a character's end.
std::string_view utf8_prefix(std::string_view text, size_t room) {
  if (text.size() <= room) return text;
  while (room > 0 && (static_cast<unsigned char>(text[room]) & 0xC0) == 0x80) --room;
  return text.substr(0, room);
}

void fail_too_long(ProviderResult& result, uint64_t limit) {
  result.end = ProviderResult::End::failed;
  result.error_code = "provider_error";
  result.error_message = "the answer grew past limits.max_answer_bytes (" + std::to_string(limit) +
                         " bytes) and was cut there";
}

ProviderResult call_provider(const ProviderInstance& provider, const std::string& request_json,
                             const CallPolicy& policy,
                             const std::function<bool(std::string_view)>& on_text,
                             const std::function<bool()>& cancelled, CancelWaker* waker,
                             CallThread thread, const std::function<void()>* meanwhile) {
  ProviderResult result;
  bool stopped_by_us = false;
  bool too_long = false;
  for (unsigned attempt = 0;; ++attempt) {
    ++result.attempts;
    try {
      provider.complete(
          request_json,
          [&](const ProviderDelta& delta) {
            // A plugin that goes on after it was told to stop gets nothing more stored
            // or sent; its usage still counts.
            if (stopped_by_us && delta.kind == AGENTRT_DELTA_TEXT) return false;
            if (delta.kind != AGENTRT_DELTA_TEXT) {
              take_delta(delta, result);
              return true;
            }
            if (delta.data.empty()) return true;
            std::string_view text = delta.data;
            if (result.text.size() + text.size() > policy.max_answer_bytes) {
              text = utf8_prefix(text, policy.max_answer_bytes - result.text.size());
              too_long = stopped_by_us = true;
            }
            result.text.append(text);
            if (!text.empty() && !on_text(text)) stopped_by_us = true;
            return !stopped_by_us;
          },
          [&] { return stopped_by_us || cancelled(); }, waker, thread, meanwhile);
      if (too_long) {
        fail_too_long(result, policy.max_answer_bytes);
        return result;
      }
      // Told to stop, it finished all the same: the answer is what came before the stop.
      result.end = stopped_by_us ? ProviderResult::End::cancelled : ProviderResult::End::completed;
      return result;
    } catch (const PluginError& e) {
      if (too_long) {
        fail_too_long(result, policy.max_answer_bytes);
        return result;
      }
      if (e.code == AGENTRT_ERR_REFUSED && result.text.empty()) {
        result.end = ProviderResult::End::failed;
        result.refused = true;
        result.error_code = "provider_error";
        result.error_message = e.what();
        return result;
      }
      if (e.code == AGENTRT_ERR_CANCELLED || stopped_by_us || cancelled()) {
        result.end = ProviderResult::End::cancelled;
        return result;
      }
      const bool retryable = e.code == AGENTRT_ERR_UNAVAILABLE && result.text.empty() &&
                             attempt < policy.max_retries &&
                             std::chrono::milliseconds(e.retry_after_ms) <= policy.max_wait;
      if (retryable) {
        auto wait = backoff(policy, static_cast<int>(attempt), e.retry_after_ms);
        // Nothing is under way during the wait: whatever waits for a call to be under
        // way (a stream's start, and its first events) waits no longer.
        if (meanwhile) (*meanwhile)();
        log_info(
            "provider call retried",
            {{"attempt", attempt + 1}, {"http_status", e.http_status}, {"wait_ms", wait.count()}});
        if (wait_unless_cancelled(wait, cancelled)) continue;
        result.end = ProviderResult::End::cancelled;
        return result;
      }
      result.end = ProviderResult::End::failed;
      result.error_code = error_code_for(e.code);
      result.error_message = e.what();
      result.retry_after_ms = e.retry_after_ms;
      return result;
    }
  }
}

}  // namespace agentrt::core
