// The checks every vendor's stream decoder target makes (plugins/*/*_stream.h): the
// input is a 2xx body as the vendor sends it, cut into reads at points the input gives
// (fuzz_support.h: CutInput). Besides not crashing, what the decoder emits must:
//   - be what the engine's sink takes: text in whole UTF-8 characters, every other
//     delta a JSON object of its kind's fields, nothing after the finish, and a finish
//     (one) unless the stream failed;
//   - not depend on the cut: the same deltas (text fragments joined) and the same
//     failure as the body in one read;
//   - fail, when it fails, with sdk::Error (no other exception crosses the plugin) and
//     a message in valid UTF-8.
// The vendor's error-body reader is given the body too: its texts are valid UTF-8.
#pragma once

#include "common/delta_emitter.h"
#include "common/error_mapping.h"
#include "common/stream_decoder.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace agentrt::fuzz {

using DecoderFactory =
    std::function<std::unique_ptr<providers::StreamDecoder>(providers::DeltaEmitter&)>;
using ErrorBodyReader = std::function<providers::UpstreamErrorInfo(std::string_view)>;

void check_stream(const DecoderFactory& make, const ErrorBodyReader& read_error,
                  const uint8_t* data, std::size_t size);

}  // namespace agentrt::fuzz
