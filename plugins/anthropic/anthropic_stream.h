// Reading Anthropic's answers: the Messages SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/json_scan.h"
#include "common/stream_decoder.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers::anthropic {

// A "usage" object's counts; each absent unless an integer.
struct UsageCounts {
  std::optional<int64_t> input, cache_creation, cache_read, output;
  bool operator==(const UsageCounts& other) const {
    return input == other.input && cache_creation == other.cache_creation &&
           cache_read == other.cache_read && output == other.output;
  }
};

// What one event's data says that the decoder acts on.
struct EventFields {
  JsonText type;  // the data's own "type", for an event without an `event:` line
  JsonText delta_type, delta_text, stop_reason;  // from "delta"
  UsageCounts message_usage;                     // message.usage (message_start)
  UsageCounts usage;                             // usage (message_delta)

  // Empties every field but keeps the buffers' capacity.
  void clear() {
    for (JsonText* text : {&type, &delta_type, &delta_text, &stop_reason}) text->clear();
    message_usage = UsageCounts{};
    usage = UsageCounts{};
  }
  bool operator==(const EventFields& other) const {
    return type == other.type && delta_type == other.delta_type && delta_text == other.delta_text &&
           stop_reason == other.stop_reason && message_usage == other.message_usage &&
           usage == other.usage;
  }
};

// The fast read of one event's data: false when it is not plainly an object it can
// read exactly as read_event would; then call read_event.
bool scan_event(std::string_view data, EventFields& fields);

// The reference read, through nlohmann::json; returns the parsed data. Throws
// Error(UPSTREAM) unless the data is a JSON object.
nlohmann::json read_event(std::string_view data, EventFields& fields);

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
  void take_usage(const UsageCounts& usage);
  std::optional<int64_t> input_tokens() const;
  std::optional<Usage> usage() const;

  EventFields fields_;  // reused, so that its buffers stop allocating
  UsageCounts counts_;
  std::string stop_reason_;
};

// Anthropic's stop_reason in the engine's words.
std::string engine_finish_reason(const std::string& stop_reason);

// {"type":"error","error":{"type","message"}}.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::anthropic
