// Reading Ollama's answers: the /api/chat NDJSON stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/stream_decoder.h"
#include "text/json_reader.h"

#include <string>
#include <string_view>

namespace agentrt::providers::ollama {

// Text from message.content of every line; the line with "done":true (which may still
// carry text) ends the call with prompt_eval_count / eval_count and done_reason. A
// {"error":"..."} line, which Ollama sends with status 200 once output has started,
// ends the call with Error(UPSTREAM).
//
// Tool calls come whole in message.tool_calls, their arguments an object: each is
// emitted as it comes, its arguments as compact JSON text ("{}" when it has none), its
// id Ollama's or "" (older Ollama gives none). Ollama's done_reason stays "stop" when
// the model called tools: an answer with calls then finishes with "tool_use".
class ChatLineDecoder : public NdjsonDecoder {
 public:
  using NdjsonDecoder::NdjsonDecoder;

 private:
  void on_line(std::string_view line) override;
  void take_tool_calls(simdjson::dom::element message);

  bool called_ = false;  // a call was emitted
};

// Ollama's done_reason in the engine's words.
std::string engine_finish_reason(const std::string& done_reason);

// {"error":"<text>"}.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::ollama
