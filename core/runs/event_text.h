// A run's events as JSON text. Each event is serialised once, when it happens; that
// text is what followers receive, SSE writes and the store keeps. It is exactly what
// nlohmann's dump gives (keys sorted, its escaping), except that invalid UTF-8 from a
// provider becomes U+FFFD instead of an exception halfway through a run.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::core {

// `event` as one line of JSON text.
std::string event_text(const nlohmann::json& event);

// The texts of the events every run has, written without building a JSON object
// (json_text.h); the same text event_text gives for the same event.
std::string run_start_text(std::string_view run_id, std::string_view session_id,
                           std::string_view model, std::string_view timestamp, int64_t seq);
std::string error_event_text(std::string_view code, std::string_view message, int64_t seq);
std::string done_text(std::string_view reason, std::string_view run_id, int64_t input_tokens,
                      int64_t output_tokens, int64_t seq);
// {"arguments","call_id","executor","name","seq","type":"tool_call"} (docs/tools.md).
std::string tool_call_text(std::string_view call_id, std::string_view name,
                           std::string_view arguments, std::string_view executor, int64_t seq);
// {"call_id","duration_ms","is_error","name","output","seq","type":"tool_result"}: a
// server tool's call ran (or failed, timed out, was denied or interrupted).
std::string tool_result_text(std::string_view call_id, std::string_view name,
                             std::string_view output, bool is_error, int64_t duration_ms,
                             int64_t seq);
// {"arguments","call_id","name","seq","server","type":"approval_request"}.
std::string approval_request_text(std::string_view call_id, std::string_view name,
                                  std::string_view arguments, std::string_view server, int64_t seq);

// Text of stream_delta events, one per upstream text delta: the hot event, so no JSON
// object is built for it. Only the content needs escaping (json_text.h); the rest is
// fixed text in the order nlohmann's sorted keys give. Not thread-safe: its owner
// serialises the calls.
class DeltaText {
 public:
  // {"content":<content>,"seq":<seq>,"type":"stream_delta"}
  std::string operator()(std::string_view content, int64_t seq);

 private:
  // Reused across deltas, so that a delta costs one allocation: the text it returns.
  std::string buffer_;
};

}  // namespace agentrt::core
