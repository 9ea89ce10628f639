// Driving a vendor's stream decoder directly, without the plugin host or a socket:
// a sink that records every delta, and helpers that feed a body in given pieces.
#pragma once

#include "common/delta_emitter.h"
#include "common/stream_decoder.h"

#include <agentrt/plugin.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::test {

// What a decoder emitted for one body: deltas as "kind:data" strings, in order, and
// the error that ended it, if any.
struct Decoded {
  std::vector<std::string> deltas;
  std::optional<std::string> error;

  bool operator==(const Decoded& other) const {
    return deltas == other.deltas && error == other.error;
  }
};

using DecoderFactory =
    std::function<std::unique_ptr<providers::StreamDecoder>(providers::DeltaEmitter&)>;

// Feeds `pieces` in order, then ends the stream.
Decoded decode_pieces(const DecoderFactory& make, const std::vector<std::string>& pieces);

// `expected` lists a fragment per upstream event, as a read per byte gives them. The
// fragments of one read reach the sink as one (delta_emitter.h): the body in one piece
// gives them joined, and cut once at every offset, the same text, however joined.
void expect_every_cut_decodes_as(const DecoderFactory& make, const std::string& body,
                                 const Decoded& expected);

}  // namespace agentrt::test
