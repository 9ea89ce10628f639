// Reading OpenAI's answers: the chat.completion.chunk SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/stream_decoder.h"
#include "text/json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers::openai {

// Text from choices[0].delta.content, finish_reason kept for the end, usage from the
// usage chunk (choices: []), all emitted at "data: [DONE]". A {"error":{...}} event
// ends the call with Error(UPSTREAM).
//
// Tool calls come in choices[0].delta.tool_calls as pieces: {index, id?, type?,
// function: {name?, arguments?}}, arguments a fragment of text to append. A call is
// whole only once the model stops, so the calls are emitted, in index order, when the
// finish_reason arrives (or the end marker, without one): a stream cut or cancelled
// before that emits none. Pieces without an "index" (some compatible servers) start a
// new call when they carry an id and continue the last one otherwise; a piece that
// repeats the id of a call begun is more of that call. A call whose arguments never
// came goes as "{}", as OpenAI itself writes a call without arguments. An answer that
// called tools finishes with "tool_use" even when the server said "stop".
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

  struct PendingCall {
    int64_t index = 0;
    std::string id, name, arguments;
  };
  void take_tool_calls(simdjson::dom::element list);
  PendingCall& call_for(std::optional<int64_t> index, std::string_view id);
  void emit_calls();
  void finish();

  std::optional<Usage> usage_;
  std::string finish_reason_;
  std::vector<PendingCall> calls_;  // begun, not yet emitted
  bool called_ = false;             // a call was emitted
};

// OpenAI's finish_reason in the engine's words.
std::string engine_finish_reason(const std::string& finish_reason);

// {"error":{"message","type","code"}}; insufficient_quota marks a 429 not worth
// retrying.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::openai
