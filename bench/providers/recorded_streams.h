// Upstream response bodies as the vendors send them (shapes, field order and extras
// from recorded streams, as tests/fakes/dialect_*.cpp speak them), for the decoder
// benchmark. Each answer has a fixed list of text fragments, so the benchmark
// can check what the decoder emitted.
#pragma once

#include <string>
#include <vector>

namespace agentrt::bench {

enum class Vendor { openai, anthropic, ollama };

const char* vendor_name(Vendor vendor);

struct RecordedStream {
  std::string body;                // the whole 2xx body
  size_t events = 0;               // SSE events or NDJSON lines in it
  std::vector<std::string> texts;  // the text deltas a decoder must emit, in order
};

// One answer of `deltas` text fragments (cycling through a fixed realistic list that
// holds plain ASCII, escaped quotes and newlines, \u escapes with a surrogate pair and
// raw multi-byte UTF-8), framed as `vendor` frames it.
RecordedStream recorded_stream(Vendor vendor, int deltas);

// Where to cut `body` into reads.
enum class Split {
  per_event,  // one read per event or line, as an upstream flushing each event gives
  awkward,    // reads of 1 to 61 bytes: cuts inside CRLF, escapes and UTF-8 characters
  whole,      // the body in one read
};

const char* split_name(Split split);
std::vector<std::string> split_body(const RecordedStream& stream, Vendor vendor, Split split);

}  // namespace agentrt::bench
