// The order the engine relies on, enforced in one place: text fragments and tool calls
// (with the input count among them when the upstream gives it early), then at most one final
// usage delta, then exactly one finish delta. A sink that says "stop" turns into
// Error(AGENTRT_ERR_CANCELLED), which unwinds the transfer.
//
// Fragments are held until flush(): the transport flushes after each pass of libcurl
// over its sockets, so the fragments of one read reach the sink as one. An upstream
// that keeps pace arrives a fragment a read and nothing changes; behind a loaded
// machine several wait in the socket, and each fragment sent on alone cost the engine
// an event, a stored entry and a write to the client (at 2,000 streams, 2 fragments a
// read, and those writes a third of agentd's CPU). The API promises fragments that
// concatenate to the answer, not the upstream's own cut.
#pragma once

#include <agentrt/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;

  bool operator==(const Usage& other) const {
    return input_tokens == other.input_tokens && output_tokens == other.output_tokens;
  }
};

class DeltaEmitter {
 public:
  explicit DeltaEmitter(sdk::Sink& sink) : sink_(sink) {}

  // Adds a text fragment to what the next flush sends; empty fragments are skipped.
  void text(std::string_view fragment);
  // One complete tool call (ABI 1.8), after the text before it: `arguments` is the
  // model's JSON text as written, `id` the vendor's or empty.
  void tool_call(std::string_view id, std::string_view name, std::string_view arguments);
  // Sends the fragments added since the last flush as one.
  void flush();
  // The same on the way out of a failed piece: what arrived before the failure still
  // reaches the sink, and the failure, not a "stop" answer, is what propagates.
  void flush_before_failure() noexcept;

  // The input count, when the upstream gives it before its end (Anthropic counts the
  // input as the answer starts): sent at once as a usage delta of that count alone, so
  // that a call that fails or is interrupted later still reports it. finish() sends
  // the final counts, which replace it. None: nothing is sent.
  void input_so_far(std::optional<int64_t> input_tokens);

  // Ends the completion: usage when the upstream reported it (never invented
  // zeros: without usage the engine estimates), then the finish reason.
  void finish(const std::optional<Usage>& usage, const std::string& reason);

  bool finished() const { return finished_; }
  bool has_pending() const { return !pending_.empty(); }

 private:
  sdk::Sink& sink_;
  std::string pending_;
  bool finished_ = false;
};

}  // namespace agentrt::providers
