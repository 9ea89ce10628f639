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

void SseDecoder::feed(std::string_view bytes) {
  parser_.feed(bytes, [this](const SseEvent& event) {
    if (!out_.finished()) on_event(event);
  });
}

void SseDecoder::end_of_stream() {
  parser_.finish([this](const SseEvent& event) {
    if (!out_.finished()) on_event(event);
  });
  if (!out_.finished()) truncated();
}

void NdjsonDecoder::take(std::string_view line) {
  if (out_.finished()) return;
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return on_line(line);
}

void NdjsonDecoder::feed(std::string_view bytes) {
  lines_.feed(bytes, [this](std::string_view line) { take(line); });
}

void NdjsonDecoder::end_of_stream() {
  // A last line without its newline is still a whole JSON object if the body ended.
  if (lines_.has_partial_line()) lines_.feed("\n", [this](std::string_view line) { take(line); });
  if (!out_.finished()) truncated();
}

}  // namespace agentrt::providers
