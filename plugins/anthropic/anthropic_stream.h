// Reading Anthropic's answers: the Messages SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/stream_decoder.h"
#include "text/json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers::anthropic {

// A "usage" object's counts; each absent unless an integer.
struct UsageCounts {
  std::optional<int64_t> input, cache_creation, cache_read, output;
};

// A tool_use block between its content_block_start and its content_block_stop.
struct ToolUseBlock {
  int64_t index = -1;  // -1: the events gave none
  std::string id, name;
  std::string arguments;  // the input_json_delta fragments so far, joined
  std::string input;      // the start's input, when a non-empty object, compact
};

// Text from content_block_delta/text_delta; a tool call from a tool_use block: its
// content_block_start (id, name), the input_json_delta fragments of its index joined,
// and its content_block_stop, where the call goes out whole (arguments "{}" when no
// fragment came: the call takes no input); usage from message_start (input, with cache
// reads and writes) and message_delta (output, cumulative: replaced, not added); the
// stop reason from message_delta; everything ends at message_stop. A block never
// stopped (a stream cut or cancelled inside it) emits nothing. An `error` event ends
// the call: overloaded_error as UNAVAILABLE, others as UPSTREAM. ping, block types
// other than tool_use, delta types other than these two and event types not known
// here are ignored.
class MessageDecoder : public SseDecoder {
 public:
  using SseDecoder::SseDecoder;

 private:
  void on_event(const SseEvent& event) override;
  void on_block_start(simdjson::dom::element data);
  void on_block_delta(simdjson::dom::element data);
  void on_block_stop(simdjson::dom::element data);
  ToolUseBlock* tool_block(int64_t index);
  void take_usage(simdjson::simdjson_result<simdjson::dom::element> usage);
  std::optional<int64_t> input_tokens() const;
  std::optional<Usage> usage() const;

  UsageCounts counts_;
  std::string stop_reason_;
  std::vector<ToolUseBlock> tool_blocks_;  // open ones: one, or a few when interleaved
};

// Anthropic's stop_reason in the engine's words.
std::string engine_finish_reason(const std::string& stop_reason);

// {"type":"error","error":{"type","message"}}.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::anthropic
