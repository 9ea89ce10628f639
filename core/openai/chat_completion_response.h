// What a Chat Completions call answers (docs/openai-compatible.md): the chat.completion
// object of a call that does not stream, and the chat.completion.chunk events of one
// that does, written from agentrt's run events and its summary (core/runs/run_service.h).
#pragma once

#include "core/runs/run_service.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace agentrt::core::openai {

// What every chunk, and the answer, says of the call.
struct CompletionHead {
  std::string id;  // chatcmpl-<the run id's hex>: the run is run_<the same hex>
  std::string model;
  int64_t created = 0;  // Unix seconds
  bool include_usage = false;
};

// "chatcmpl-" and the run id without its "run_".
std::string completion_id(std::string_view run_id);

// stop, length or tool_calls for a run's done reason (and content_filter when the
// provider said so), as OpenAI's finish_reason.
std::string finish_reason(const RunSummary& summary);

// The chat.completion object.
std::string completion_text(const CompletionHead& head, const RunSummary& summary);

// A run's sink that writes its text deltas and tool calls as chunks to `out` (an SSE
// stream, which adds "data: "), the role's chunk before the first. The run's end is the
// caller's to write from its summary (finish), since only the summary knows how it
// ended; events other than deltas and tool calls are agentrt's and are not sent.
class ChunkSink : public RunSink {
 public:
  ChunkSink(RunSink& out, CompletionHead head, std::function<bool()> client_gone);

  bool send(const std::string& event) override;
  bool idle() override;
  bool begin() override { return true; }  // the head goes with the first chunk

  // Whether any chunk went out: before that the call can still fail as HTTP does.
  bool started() const;
  // The finish chunk, the usage chunk when asked for, then [DONE]; or, for a run that
  // failed or was interrupted, an error event in OpenAI's shape and [DONE].
  void finish(const RunSummary& summary);

 private:
  bool write(const std::string& chunk);
  std::string chunk(std::string_view delta, std::string_view finish) const;
  bool start();

  RunSink& out_;
  const CompletionHead head_;
  std::function<bool()> client_gone_;
  mutable std::mutex mutex_;  // the provider's thread sends; the run's asks idle()
  bool started_ = false;
  bool gone_ = false;
  int64_t calls_ = 0;  // tool calls sent: the next one's index
};

// The code a failed run's error says: rate_limit_exceeded, OpenAI's, when the upstream
// answered 429 (its rate limit, past agentd's retries), else agentrt's own.
std::string failure_code(const RunSummary& summary);

// The OpenAI error type for an error code in a stream, where no status says it.
const char* stream_error_type(std::string_view code);

}  // namespace agentrt::core::openai
