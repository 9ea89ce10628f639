// Reading Ollama's answers: the /api/chat NDJSON stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/json_scan.h"
#include "common/stream_decoder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers::ollama {

// What one line says that the decoder acts on.
struct LineFields {
  JsonText content;   // message.content
  bool done = false;  // "done" is true (the boolean, nothing else)
  std::optional<int64_t> prompt_eval_count, eval_count;
  JsonText done_reason;

  void clear() {
    content.clear();
    done = false;
    prompt_eval_count.reset();
    eval_count.reset();
    done_reason.clear();
  }
  bool operator==(const LineFields& other) const {
    return content == other.content && done == other.done &&
           prompt_eval_count == other.prompt_eval_count && eval_count == other.eval_count &&
           done_reason == other.done_reason;
  }
};

// The fast read of one line: false when it is not plainly a line it can read exactly
// as read_line would (an error line included); then call read_line.
bool scan_line(std::string_view line, LineFields& fields);

// The reference read, through nlohmann::json. Throws Error(UPSTREAM) for a line that
// is not a JSON object and for an {"error":...} line.
void read_line(std::string_view line, LineFields& fields);

// Text from message.content of every line; the line with "done":true (which may still
// carry text) ends the call with prompt_eval_count / eval_count and done_reason. A
// {"error":"..."} line, which Ollama sends with status 200 once output has started,
// ends the call with Error(UPSTREAM).
class ChatLineDecoder : public NdjsonDecoder {
 public:
  using NdjsonDecoder::NdjsonDecoder;

 private:
  void on_line(std::string_view line) override;

  LineFields fields_;  // reused, so that its buffers stop allocating
};

// Ollama's done_reason in the engine's words.
std::string engine_finish_reason(const std::string& done_reason);

// {"error":"<text>"}.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::ollama
