#include "core/openai/chat_completions.h"

#include "core/domain/errors.h"
#include "core/openai/openai_fields.h"

#include <chrono>

namespace agentrt::core::openai {
namespace {

ErrorKind kind_for(const std::string& code) {
  if (code == "provider_unavailable") return ErrorKind::provider_unavailable;
  if (code == "provider_timeout") return ErrorKind::provider_timeout;
  if (code == "internal") return ErrorKind::internal;
  return ErrorKind::provider_error;
}

PreparedRun prepare(RunService& runs, const ProviderRegistry& providers, const std::string& cell,
                    const Principal& who, ChatCompletionRequest& request) {
  if (!providers.resolve(request.run.model))
    throw ParamError(ErrorKind::not_found, "model_not_found", "model",
                     "The model '" + request.run.model + "' does not exist.");
  request.run.actor = acting_actor_of(who, request.user);
  return runs.prepare(cell, who, std::move(request.run),
                      request.stream ? StartWrite::with_call : StartWrite::with_end);
}

}  // namespace

// A run that ended without an answer, as the error its client gets.
void fail(const RunSummary& summary, const std::string& run_id) {
  if (!summary.failed)
    throw DomainError(ErrorKind::provider_unavailable, "interrupted",
                      "the run was interrupted before it answered (run " + run_id + ")");
  throw DomainError(kind_for(summary.error_code), failure_code(summary),
                    summary.error_message + " (run " + run_id + ")")
      .with_retry_after((int64_t{summary.retry_after_ms} + 999) / 1000);
}

std::optional<std::string> acting_actor_of(const Principal& who,
                                           const std::optional<std::string>& user) {
  if (!who.admin || !user || user->empty()) return std::nullopt;
  try {
    check_actor_name(*user);
  } catch (const DomainError&) {
    throw bad_param("user",
                    "Invalid 'user': for an admin token it names the actor, at most " +
                        std::to_string(kActorMaxCharacters) +
                        " characters without a control character or a blank at either end.");
  }
  return user;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ChatCompletion::ChatCompletion(RunService& runs, const ProviderRegistry& providers,
                               const std::string& cell, const Principal& who,
                               ChatCompletionRequest request)
    : runs_(runs),
      run_(prepare(runs, providers, cell, who, request)),
      head_{completion_id(run_.live->id), run_.model.model.id, unix_now(), request.include_usage},
      stream_(request.stream) {}

RunSummary run_to_answer(RunService& runs, PreparedRun& run,
                         const std::function<bool()>& client_gone) {
  run.provider_thread = CallThread::caller;
  AnswerOnlySink sink(client_gone);
  RunSummary summary = runs.execute(run, sink);
  if (summary.failed || summary.reason == "interrupted") fail(summary, run.live->id);
  return summary;
}

std::string ChatCompletion::answer(const std::function<bool()>& client_gone) {
  return completion_text(head_, run_to_answer(runs_, run_, client_gone));
}

void ChatCompletion::stream(RunSink& events, const std::function<bool()>& client_gone) {
  ChunkSink chunks(events, head_, client_gone);
  const std::string run_id = run_.live->id;
  const RunSummary summary = runs_.execute(run_, chunks);
  if ((summary.failed || summary.reason == "interrupted") && !chunks.started())
    fail(summary, run_id);
  chunks.finish(summary);
}

}  // namespace agentrt::core::openai
