// Reading OpenAI's answers: the chat.completion.chunk SSE stream and error bodies.
#pragma once

#include "common/error_mapping.h"
#include "common/json_scan.h"
#include "common/stream_decoder.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers::openai {

// What one chat.completion.chunk says that the decoder acts on.
struct ChunkFields {
  struct Choice {
    JsonText content;        // delta.content
    JsonText finish_reason;  // "" while the answer goes on
    bool operator==(const Choice& other) const {
      return content == other.content && finish_reason == other.finish_reason;
    }
  };
  std::vector<Choice> choices;  // the object elements with index 0 (or none), in order
  std::optional<Usage> usage;   // when "usage" is an object

  bool operator==(const ChunkFields& other) const {
    return choices == other.choices && usage == other.usage;
  }
};

// The fast read of one chunk: false when `data` is not plainly a chunk it can read
// exactly as read_chunk would (an error chunk included); then call read_chunk.
bool scan_chunk(std::string_view data, ChunkFields& fields);

// What the chunks of one stream repeat: the bytes of an earlier chunk up to the end of
// its last member before the first "choices", "usage" or "error" (OpenAI sends the same
// id, object, created, model and system_fingerprint in each). Empty until a chunk with
// such members was scanned.
using ChunkHead = std::string;
// scan_chunk for the chunks of one stream: one that starts with `head` has those bytes passed by
// one comparison instead of a scan: nearly half of a chunk's bytes. Otherwise `head` becomes this
// chunk's, when it is read.
bool scan_stream_chunk(std::string_view data, ChunkFields& fields, ChunkHead& head);

// What the text chunks of one stream share around their text: every byte but the
// string of delta.content (OpenAI's differ in that string alone). Learned from a chunk
// the scan read as one choice (index 0) with text, no finish_reason and no usage.
struct ContentFrame {
  std::string before;  // up to the string's opening quote
  std::string after;   // from the byte after its closing quote
};
// A chunk that is `frame`'s bytes around one JSON value reads as the chunk the frame
// was learned from with that value as its text: the value is read (and validated) as
// the scan reads delta.content, with two comparisons for everything else, where the
// scan of the rest was 1,600 instructions a chunk. False when `data` is not such a chunk.
bool scan_framed_chunk(std::string_view data, ChunkFields& fields, const ContentFrame& frame);
// Makes `frame` the one around `fields`' text when the scan just read `data` into
// `fields` and they are of the kind a frame is learned from; otherwise leaves it.
void learn_frame(std::string_view data, const ChunkFields& fields, ContentFrame& frame);

// The reference read, through nlohmann::json. Throws Error(UPSTREAM) for a chunk
// that is not a JSON object and for an {"error":{...}} chunk.
void read_chunk(std::string_view data, ChunkFields& fields);

// Text from choices[0].delta.content, finish_reason kept for the end, usage from the
// usage chunk (choices: []), all emitted at "data: [DONE]". A {"error":{...}} event
// ends the call with Error(UPSTREAM).
class ChunkDecoder : public SseDecoder {
 public:
  using SseDecoder::SseDecoder;

 private:
  void on_event(const SseEvent& event) override;
  // An answer whose finish_reason came is whole without "data: [DONE]", which some
  // OpenAI-compatible servers never send and OpenAI's own SDK does not wait for; one
  // cut before its finish_reason is still truncated.
  void on_end_without_marker() override;

  ChunkFields fields_;  // reused, so that its buffers stop allocating
  ChunkHead head_;
  ContentFrame frame_;
  // Chunks in a row that a learned frame did not fit. A stream whose text chunks differ
  // elsewhere too (a field that changes every chunk) stops learning one after a few:
  // each try would cost a comparison and a copy for nothing.
  int frame_misses_ = 0;
  std::optional<Usage> usage_;
  std::string finish_reason_;
};

// OpenAI's finish_reason in the engine's words.
std::string engine_finish_reason(const std::string& finish_reason);

// {"error":{"message","type","code"}}; insufficient_quota marks a 429 not worth
// retrying.
UpstreamErrorInfo parse_error_body(std::string_view body);

}  // namespace agentrt::providers::openai
