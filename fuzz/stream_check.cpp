#include "fuzz/stream_check.h"

#include "fuzz/fuzz_support.h"
#include "text/utf8.h"

#include <agentrt/plugin.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentrt::fuzz {
namespace {

using nlohmann::json;

struct Delta {
  uint32_t kind;
  std::string data;
  bool operator==(const Delta& other) const { return kind == other.kind && data == other.data; }
};

struct Decoded {
  std::vector<Delta> deltas;
  std::optional<std::string> error;  // "<code>: <message>"
};

// Records the deltas and checks each as the engine's sink would take it.
struct CheckingSink {
  agentrt_sink_t c{};
  std::vector<Delta> deltas;
  bool finished = false;

  CheckingSink() {
    c.struct_size = sizeof c;
    c.ctx = this;
    c.emit = [](agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) -> int32_t {
      static_cast<CheckingSink*>(sink->ctx)->take(kind, std::string(data, len));
      return 0;
    };
    c.is_cancelled = [](const agentrt_sink_t*) -> int32_t { return 0; };
  }

  void take(uint32_t kind, std::string data) {
    FUZZ_CHECK(!finished, "nothing after the finish");
    FUZZ_CHECK(text::is_utf8(data), "a delta is valid UTF-8");
    if (kind == AGENTRT_DELTA_TEXT) {
      FUZZ_CHECK(!data.empty(), "no empty text fragment");
    } else {
      const json object = json::parse(data, nullptr, false);
      FUZZ_CHECK(object.is_object(), "a delta other than text is a JSON object");
      if (kind == AGENTRT_DELTA_USAGE)
        FUZZ_CHECK(object.contains("input_tokens") && object["input_tokens"].is_number_integer(),
                   "usage counts input tokens");
      if (kind == AGENTRT_DELTA_FINISH)
        FUZZ_CHECK(object.contains("reason") && object["reason"].is_string(),
                   "a finish has a reason");
      if (kind == AGENTRT_DELTA_TOOL_CALL)
        for (const char* field : {"id", "name", "arguments"})
          FUZZ_CHECK(object.contains(field) && object[field].is_string(), "a tool call is whole");
      FUZZ_CHECK(kind == AGENTRT_DELTA_USAGE || kind == AGENTRT_DELTA_FINISH ||
                     kind == AGENTRT_DELTA_TOOL_CALL,
                 "a delta of a known kind");
    }
    finished = kind == AGENTRT_DELTA_FINISH;
    deltas.push_back({kind, std::move(data)});
  }
};

Decoded decode(const DecoderFactory& make, const std::vector<std::string_view>& pieces) {
  CheckingSink sink;
  sdk::Sink wrapped(&sink.c);
  providers::DeltaEmitter out(wrapped);
  std::unique_ptr<providers::StreamDecoder> decoder = make(out);
  Decoded result;
  try {
    for (std::string_view piece : pieces) {  // a piece a read, as the transports flush
      decoder->feed(piece);
      out.flush();
    }
    decoder->end_of_stream();
    FUZZ_CHECK(sink.finished && decoder->complete(), "a stream that ends well has finished");
  } catch (const sdk::Error& e) {
    FUZZ_CHECK(text::is_utf8(e.what()), "a failure's message is valid UTF-8");
    result.error = std::to_string(e.code()) + ": " + e.what();
  }
  result.deltas = std::move(sink.deltas);
  return result;
}

// Consecutive text fragments joined into one: the one thing a cut may change.
std::vector<Delta> joined(const std::vector<Delta>& deltas) {
  std::vector<Delta> out;
  for (const Delta& delta : deltas) {
    if (delta.kind == AGENTRT_DELTA_TEXT && !out.empty() && out.back().kind == AGENTRT_DELTA_TEXT)
      out.back().data += delta.data;
    else
      out.push_back(delta);
  }
  return out;
}

}  // namespace

void check_stream(const DecoderFactory& make, const ErrorBodyReader& read_error,
                  const uint8_t* data, std::size_t size) {
  const CutInput input = CutInput::from(data, size);
  const Decoded cut = decode(make, input.pieces());
  const Decoded whole = decode(make, {input.body});
  FUZZ_CHECK(joined(cut.deltas) == joined(whole.deltas), "the cut changes no delta");
  FUZZ_CHECK(cut.error == whole.error, "the cut changes no failure");

  const providers::UpstreamErrorInfo info = read_error(input.body);
  FUZZ_CHECK(text::is_utf8(info.message) && text::is_utf8(info.type),
             "an error body's texts are valid UTF-8");
}

}  // namespace agentrt::fuzz
