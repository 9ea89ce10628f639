#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

struct RecordingSink {
  agentrt_sink_t c{};
  std::vector<std::string> deltas;

  RecordingSink() {
    c.struct_size = sizeof c;
    c.ctx = this;
    c.emit = [](agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) -> int32_t {
      auto* self = static_cast<RecordingSink*>(sink->ctx);
      self->deltas.push_back(std::to_string(kind) + ":" + std::string(data, len));
      return 0;
    };
    c.is_cancelled = [](const agentrt_sink_t*) -> int32_t { return 0; };
  }
};

}  // namespace

Decoded decode_pieces(const DecoderFactory& make, const std::vector<std::string>& pieces) {
  RecordingSink sink;
  sdk::Sink wrapped(&sink.c);
  providers::DeltaEmitter out(wrapped);
  std::unique_ptr<providers::StreamDecoder> decoder = make(out);
  Decoded result;
  try {
    for (const std::string& piece : pieces) {  // a piece a read, as the transports flush
      decoder->feed(piece);
      out.flush();
    }
    decoder->end_of_stream();
  } catch (const sdk::Error& e) {
    result.error = std::to_string(e.code()) + ": " + e.what();
  }
  result.deltas = std::move(sink.deltas);
  return result;
}

namespace {

// Consecutive text fragments ("1:...") joined into one.
Decoded joined_text(const Decoded& decoded) {
  Decoded out;
  out.error = decoded.error;
  for (const std::string& delta : decoded.deltas) {
    const bool text = delta.rfind("1:", 0) == 0;
    if (text && !out.deltas.empty() && out.deltas.back().rfind("1:", 0) == 0)
      out.deltas.back() += delta.substr(2);
    else
      out.deltas.push_back(delta);
  }
  return out;
}

}  // namespace

void expect_every_cut_decodes_as(const DecoderFactory& make, const std::string& body,
                                 const Decoded& expected) {
  const Decoded joined = joined_text(expected);
  ASSERT_EQ(decode_pieces(make, {body}), joined);
  for (size_t cut = 0; cut <= body.size(); ++cut)
    ASSERT_EQ(joined_text(decode_pieces(make, {body.substr(0, cut), body.substr(cut)})), joined)
        << "cut at byte " << cut;
  std::vector<std::string> bytes;
  for (char c : body) bytes.emplace_back(1, c);
  EXPECT_EQ(decode_pieces(make, bytes), expected);
}

}  // namespace agentrt::test
