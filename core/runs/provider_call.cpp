#include "core/runs/provider_call.h"

#include "core/domain/json_sax.h"
#include "core/log/logger.h"

#include <nlohmann/json.hpp>

#include <climits>
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

std::chrono::milliseconds backoff(const RetryPolicy& policy, int attempt, uint32_t retry_after_ms) {
  if (retry_after_ms > 0) return std::chrono::milliseconds(retry_after_ms);
  thread_local std::minstd_rand jitter(std::random_device{}());
  auto base = policy.first_backoff * (1 << std::min(attempt, 6));
  return base + std::chrono::milliseconds(jitter() % (base.count() / 2 + 1));
}

// Reads the top-level members a usage or finish delta carries ({"input_tokens":8,
// "output_tokens":16}, {"reason":"stop"}) as the parser meets them: no document is
// built for a few numbers, twice a run.
class DeltaFields : public JsonSaxReader {
 public:
  std::optional<int64_t> input_tokens, output_tokens;
  std::optional<std::string> reason;

  bool key(string_t& name) override {
    key_ = depth_ == 1 ? name : std::string();
    return true;
  }
  bool number_integer(number_integer_t value) override { return take(value); }
  bool number_unsigned(number_unsigned_t value) override {
    return value <= static_cast<uint64_t>(INT64_MAX) ? take(static_cast<int64_t>(value)) : true;
  }
  bool string(string_t& value) override {
    if (depth_ == 1 && key_ == "reason") reason = std::move(value);
    return true;
  }
  bool start_object(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }

 private:
  bool take(int64_t value) {
    if (depth_ == 1 && key_ == "input_tokens") input_tokens = value;
    if (depth_ == 1 && key_ == "output_tokens") output_tokens = value;
    return true;
  }
  bool enter() {
    ++depth_;
    key_.clear();
    return true;
  }
  bool leave() {
    --depth_;
    key_.clear();
    return true;
  }
  int depth_ = 0;  // 1 inside the top-level object: only its members count
  std::string key_;
};

void take_delta(const ProviderDelta& delta, ProviderResult& result) {
  DeltaFields fields;
  if (!nlohmann::json::sax_parse(delta.data, &fields)) return;
  if (delta.kind == AGENTRT_DELTA_USAGE) {
    if (fields.input_tokens) result.input_tokens = fields.input_tokens;
    if (fields.output_tokens) result.output_tokens = fields.output_tokens;
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

ProviderResult call_provider(const ProviderInstance& provider, const std::string& request_json,
                             const RetryPolicy& policy,
                             const std::function<bool(std::string_view)>& on_text,
                             const std::function<bool()>& cancelled, CancelWaker* waker,
                             CallThread thread, const std::function<void()>* meanwhile) {
  ProviderResult result;
  bool stopped_by_us = false;
  for (unsigned attempt = 0;; ++attempt) {
    ++result.attempts;
    try {
      provider.complete(
          request_json,
          [&](const ProviderDelta& delta) {
            if (delta.kind != AGENTRT_DELTA_TEXT) {
              take_delta(delta, result);
              return true;
            }
            if (delta.data.empty()) return true;
            result.text.append(delta.data);
            if (!on_text(delta.data)) stopped_by_us = true;
            return !stopped_by_us;
          },
          [&] { return stopped_by_us || cancelled(); }, waker, thread, meanwhile);
      result.end = ProviderResult::End::completed;
      return result;
    } catch (const PluginError& e) {
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
      return result;
    }
  }
}

}  // namespace agentrt::core
