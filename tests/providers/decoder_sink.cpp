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
    for (const std::string& piece : pieces) decoder->feed(piece);
    decoder->end_of_stream();
  } catch (const sdk::Error& e) {
    result.error = std::to_string(e.code()) + ": " + e.what();
  }
  result.deltas = std::move(sink.deltas);
  return result;
}

void expect_every_cut_decodes_as(const DecoderFactory& make, const std::string& body,
                                 const Decoded& expected) {
  ASSERT_EQ(decode_pieces(make, {body}), expected);
  for (size_t cut = 0; cut <= body.size(); ++cut)
    ASSERT_EQ(decode_pieces(make, {body.substr(0, cut), body.substr(cut)}), expected)
        << "cut at byte " << cut;
  std::vector<std::string> bytes;
  for (char c : body) bytes.emplace_back(1, c);
  EXPECT_EQ(decode_pieces(make, bytes), expected);
}

}  // namespace agentrt::test
