// Turns an upstream's 2xx body into deltas. The transport hands over bytes in
// whatever pieces the network produced; decoders frame them (SSE events or NDJSON
// lines) and translate each complete unit.
#pragma once

#include "common/delta_emitter.h"
#include "common/line_splitter.h"
#include "common/sse_parser.h"

#include <string>
#include <string_view>

namespace agentrt::providers {

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // Consumes the next piece of the body; may emit deltas and throw sdk::Error.
  virtual void feed(std::string_view bytes) = 0;
  // The upstream ended the body cleanly. A stream without its end marker is
  // truncated: throws Error(AGENTRT_ERR_UPSTREAM) after what arrived was emitted.
  virtual void end_of_stream() = 0;
  // True once the stream's end marker arrived and every delta was emitted.
  virtual bool complete() const = 0;
};

// Error(AGENTRT_ERR_UPSTREAM) for a unit the upstream should never have sent.
[[noreturn]] void malformed(const std::string& what);

// For vendors that speak server-sent events.
class SseDecoder : public StreamDecoder {
 public:
  explicit SseDecoder(DeltaEmitter& out) : out_(out) {}
  void feed(std::string_view bytes) final;
  void end_of_stream() final;
  bool complete() const final { return out_.finished(); }

 protected:
  // One complete event; called only until the end marker was seen.
  virtual void on_event(const SseEvent& event) = 0;
  // The body ended cleanly, after one event at least, with no end marker: a vendor
  // whose events show the answer whole may finish it here. Otherwise it is truncated.
  virtual void on_end_without_marker() {}
  DeltaEmitter& out_;

 private:
  SseParser parser_;
  bool any_event_ = false;  // a body without one was not a stream at all
};

// For vendors that speak newline-delimited JSON.
class NdjsonDecoder : public StreamDecoder {
 public:
  explicit NdjsonDecoder(DeltaEmitter& out) : out_(out), lines_(/*cr_ends_line=*/false) {}
  void feed(std::string_view bytes) final;
  void end_of_stream() final;
  bool complete() const final { return out_.finished(); }

 protected:
  // One non-blank line; called only until the end marker was seen.
  virtual void on_line(std::string_view line) = 0;
  DeltaEmitter& out_;

 private:
  void take(std::string_view line);
  LineSplitter lines_;
};

}  // namespace agentrt::providers
