// The decoder of OpenAI's chat.completion.chunk SSE stream (plugins/openai/openai_stream.h),
// tool-call pieces included, with the checks of stream_check.h.
#include "fuzz/stream_check.h"
#include "openai/openai_stream.h"

#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace vendor = agentrt::providers::openai;
  agentrt::fuzz::check_stream(
      [](agentrt::providers::DeltaEmitter& out) {
        return std::make_unique<vendor::ChunkDecoder>(out);
      },
      [](std::string_view body) { return vendor::parse_error_body(body); }, data, size);
  return 0;
}
