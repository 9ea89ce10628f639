#include "common/stream_decoder.h"

namespace agentrt::providers {
namespace {

[[noreturn]] void truncated() {
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream stream ended before its end marker");
}

}  // namespace

void malformed(const std::string& what) {
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream sent a malformed event: " + what);
}

namespace {

// Text decoded before a failure still reaches the sink, ahead of the failure; text of
// a piece that decoded cleanly waits for the transport's flush (delta_emitter.h).
template <typename Decode>
void decode_piece(DeltaEmitter& out, Decode&& decode) {
  try {
    decode();
  } catch (...) {
    out.flush_before_failure();
    throw;
  }
}

}  // namespace

void SseDecoder::feed(std::string_view bytes) {
  decode_piece(out_, [&] {
    parser_.feed(bytes, [this](const SseEvent& event) {
      any_event_ = true;
      if (!out_.finished()) on_event(event);
    });
  });
}

void SseDecoder::end_of_stream() {
  decode_piece(out_, [&] {
    parser_.finish([this](const SseEvent& event) {
      any_event_ = true;
      if (!out_.finished()) on_event(event);
    });
  });
  out_.flush();
  // A whole JSON answer, or a proxy's HTML page, holds no event: "ended before its end
  // marker" would send whoever reads the log looking for a cut connection.
  if (!any_event_)
    throw sdk::Error(AGENTRT_ERR_UPSTREAM,
                     "upstream answered without a single server-sent event (not a stream: a "
                     "whole JSON answer, or an HTML page from a proxy?)");
  if (!out_.finished()) on_end_without_marker();
  if (!out_.finished()) truncated();
}

void NdjsonDecoder::take(std::string_view line) {
  if (out_.finished()) return;
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return on_line(line);
}

void NdjsonDecoder::feed(std::string_view bytes) {
  decode_piece(out_, [&] { lines_.feed(bytes, [this](std::string_view line) { take(line); }); });
}

void NdjsonDecoder::end_of_stream() {
  // A last line without its newline is still a whole JSON object if the body ended.
  decode_piece(out_, [&] {
    if (lines_.has_partial_line()) lines_.feed("\n", [this](std::string_view line) { take(line); });
  });
  out_.flush();
  if (!out_.finished()) truncated();
}

}  // namespace agentrt::providers
