// Reading OpenAI's answers: the chat.completion.chunk SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/stream_decoder.h"
#include "text/json_reader.h"

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers::openai {

// Text from choices[0].delta.content, finish_reason kept for the end, usage from the
// usage chunk (choices: []), all emitted at "data: [DONE]". A {"error":{...}} event
// ends the call with Error(UPSTREAM).
class ChunkDecoder : public SseDecoder {
 public:
  using SseDecoder::SseDecoder;

 private:
  void on_event(const SseEvent& event) override;
  // An answer whose finish_reason came is whole without "data: [DONE]", which some
  // OpenAI-compatible servers never send and OpenAI's own SDK does not wait for; one
  // cut before its finish_reason is still truncated.
  void on_end_without_marker() override;
  void take_choice(simdjson::dom::element choice);

  std::optional<Usage> usage_;
  std::string finish_reason_;
};

// OpenAI's finish_reason in the engine's words.
std::string engine_finish_reason(const std::string& finish_reason);

// {"error":{"message","type","code"}}; insufficient_quota marks a 429 not worth
// retrying.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::openai
