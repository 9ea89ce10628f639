// The decoder of Ollama's /api/chat NDJSON stream (plugins/ollama/ollama_stream.h),
// tool calls included, with the checks of stream_check.h.
#include "fuzz/stream_check.h"
#include "ollama/ollama_stream.h"

#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace vendor = agentrt::providers::ollama;
  agentrt::fuzz::check_stream(
      [](agentrt::providers::DeltaEmitter& out) {
        return std::make_unique<vendor::ChatLineDecoder>(out);
      },
      [](std::string_view body) { return vendor::parse_error_body(body); }, data, size);
  return 0;
}
