// The decoder of Anthropic's Messages SSE stream (plugins/anthropic/anthropic_stream.h),
// tool_use blocks and their input_json_delta fragments included, with the checks of stream_check.h.
#include "anthropic/anthropic_stream.h"
#include "fuzz/stream_check.h"

#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace vendor = agentrt::providers::anthropic;
  agentrt::fuzz::check_stream(
      [](agentrt::providers::DeltaEmitter& out) {
        return std::make_unique<vendor::MessageDecoder>(out);
      },
      [](std::string_view body) { return vendor::parse_error_body(body); }, data, size);
  return 0;
}
