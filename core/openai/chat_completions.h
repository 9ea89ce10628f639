// One POST /v1/chat/completions (docs/openai-compatible.md): the stateless run it asks
// for, in a new session of the acting actor, stored and listed like any other run, and
// answered as OpenAI answers: a chat.completion object, or chat.completion.chunk events.
#pragma once

#include "core/auth/principal.h"
#include "core/openai/chat_completion_request.h"
#include "core/openai/chat_completion_response.h"
#include "core/providers/provider_registry.h"
#include "core/runs/run_service.h"

#include <functional>
#include <optional>
#include <string>

namespace agentrt::core::openai {

// A run that ended without an answer (failed, or interrupted), as the error its client
// gets.
[[noreturn]] void fail(const RunSummary& summary, const std::string& run_id);

// Runs `run` for a client that waits for its end (a non-streamed /v1 answer): its summary,
// or the error fail() throws for a run that failed or was interrupted.
RunSummary run_to_answer(RunService& runs, PreparedRun& run,
                         const std::function<bool()>& client_gone);
// The actor an admin token acts as (`user`, checked), else none: the token's own.
std::optional<std::string> acting_actor_of(const Principal& who,
                                           const std::optional<std::string>& user);
int64_t unix_now();  // Unix seconds

class ChatCompletion {
 public:
  // Refuses (openai_fields.h) before anything is stored: an unknown model is 404
  // model_not_found. An admin token acts as the actor `user` names (else admin); any
  // other token as its own, `user` then being the caller's metadata only.
  ChatCompletion(RunService& runs, const ProviderRegistry& providers, const std::string& cell,
                 const Principal& who, ChatCompletionRequest request);

  const PreparedRun& run() const { return run_; }
  bool streams() const { return stream_; }

  // The chat.completion JSON text. A failed run throws its error, as /chat does.
  // `client_gone`, asked while the provider is silent, stops the run of a client that left.
  std::string answer(const std::function<bool()>& client_gone);
  // The chunks into `events`, which writes each text as an SSE `data:` line, then
  // [DONE]. A run that fails before its first chunk throws instead, with nothing sent, so
  // that the client gets the error's HTTP status.
  void stream(RunSink& events, const std::function<bool()>& client_gone);

 private:
  RunService& runs_;
  PreparedRun run_;
  CompletionHead head_;
  bool stream_ = false;
};

}  // namespace agentrt::core::openai
