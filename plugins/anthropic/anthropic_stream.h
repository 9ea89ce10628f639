// Reading Anthropic's answers: the Messages SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/stream_decoder.h"
#include "text/json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers::anthropic {

// A "usage" object's counts; each absent unless an integer.
struct UsageCounts {
  std::optional<int64_t> input, cache_creation, cache_read, output;
};

// Text from content_block_delta/text_delta; usage from message_start (input, with
// cache reads and writes) and message_delta (output, cumulative: replaced, not
// added); the stop reason from message_delta; everything ends at message_stop. An
// `error` event ends the call: overloaded_error as UNAVAILABLE, others as UPSTREAM.
// ping and event types not known here are ignored.
class MessageDecoder : public SseDecoder {
 public:
  using SseDecoder::SseDecoder;

 private:
  void on_event(const SseEvent& event) override;
  void take_usage(simdjson::simdjson_result<simdjson::dom::element> usage);
  std::optional<int64_t> input_tokens() const;
  std::optional<Usage> usage() const;

  UsageCounts counts_;
  std::string stop_reason_;
};

// Anthropic's stop_reason in the engine's words.
std::string engine_finish_reason(const std::string& stop_reason);

// {"type":"error","error":{"type","message"}}.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::anthropic
