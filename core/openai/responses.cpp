#include "core/openai/responses.h"

#include "core/domain/errors.h"
#include "core/openai/chat_completion_response.h"
#include "core/openai/chat_completions.h"
#include "core/openai/openai_fields.h"
#include "core/openai/response_stream.h"

namespace agentrt::core::openai {
namespace {

using nlohmann::json;

constexpr std::string_view kRun = "run_", kResp = "resp_";

// The run's session when it continues a response: the previous run's, as its actor.
void continue_previous(RunService& runs, const std::string& cell, const Principal& who,
                       ResponsesRequest& request) {
  if (!request.previous_response_id) return;
  const std::optional<std::string> run_id = run_of_response(*request.previous_response_id);
  RunRecord previous;
  try {
    if (!run_id) throw not_found("no such response");
    previous = runs.visible_run(cell, who, *run_id);
  } catch (const DomainError&) {
    throw ParamError(
        ErrorKind::not_found, "previous_response_not_found", "previous_response_id",
        "Previous response with id '" + *request.previous_response_id + "' not found.");
  }
  request.run.session_id = previous.session_id;
  request.run.actor = previous.actor;
}

PreparedRun prepare(RunService& runs, const ProviderRegistry& providers, const std::string& cell,
                    const Principal& who, ResponsesRequest& request) {
  if (!providers.resolve(request.run.model))
    throw ParamError(ErrorKind::not_found, "model_not_found", "model",
                     "The model '" + request.run.model + "' does not exist.");
  request.run.actor = acting_actor_of(who, request.user);
  continue_previous(runs, cell, who, request);
  return runs.prepare(
      cell, who, std::move(request.run),
      request.stream || request.background ? StartWrite::with_call : StartWrite::with_end);
}

std::string hex_of(const std::string& id) {
  const size_t underscore = id.find('_');
  return underscore == std::string::npos ? id : id.substr(underscore + 1);
}

json output_of(const ResponseHead& head, const RunSummary& summary) {
  json output = json::array();
  if (!summary.text.empty() || summary.tool_calls.empty())
    output.push_back(
        {{"type", "message"},
         {"id", "msg_" + hex_of(head.id)},
         {"status", summary.reason == "max_tokens" ? "incomplete" : "completed"},
         {"role", "assistant"},
         {"content",
          {{{"type", "output_text"}, {"text", summary.text}, {"annotations", json::array()}}}}});
  for (const ToolCall& call : summary.tool_calls)
    output.push_back({{"type", "function_call"},
                      {"id", "fc_" + call.id},
                      {"call_id", call.id},
                      {"name", call.name},
                      {"arguments", call.arguments},
                      {"status", "completed"}});
  return output;
}

}  // namespace

std::string response_id(std::string_view run_id) {
  if (run_id.substr(0, kRun.size()) == kRun) run_id.remove_prefix(kRun.size());
  return std::string(kResp) + std::string(run_id);
}

std::optional<std::string> run_of_response(std::string_view id) {
  if (id.substr(0, kResp.size()) != kResp || id.size() == kResp.size()) return std::nullopt;
  return std::string(kRun) + std::string(id.substr(kResp.size()));
}

json response_object(const ResponseHead& head, const RunSummary& summary) {
  const bool incomplete = summary.reason == "max_tokens";
  std::string status = "completed";
  if (summary.failed)
    status = "failed";
  else if (summary.reason == "interrupted")
    status = "cancelled";
  else if (incomplete)
    status = "incomplete";
  json object = {
      {"id", head.id},
      {"object", "response"},
      {"created_at", head.created_at},
      {"status", status},
      {"error", summary.failed
                    ? json{{"code", failure_code(summary)}, {"message", summary.error_message}}
                    : json()},
      {"incomplete_details", incomplete ? json{{"reason", "max_output_tokens"}} : json()},
      {"model", head.model},
      {"output", output_of(head, summary)},
      {"parallel_tool_calls", true},
      {"previous_response_id",
       head.previous_response_id ? json(*head.previous_response_id) : json()},
      {"max_output_tokens", head.max_output_tokens ? json(*head.max_output_tokens) : json()},
      {"store", head.store},
      {"metadata", json::object()},
      {"usage",
       {{"input_tokens", summary.input_tokens},
        {"input_tokens_details", {{"cached_tokens", 0}}},
        {"output_tokens", summary.output_tokens},
        {"output_tokens_details", {{"reasoning_tokens", 0}}},
        {"total_tokens", summary.input_tokens + summary.output_tokens}}}};
  return object;
}

ResponseCall::ResponseCall(RunService& runs, const ProviderRegistry& providers,
                           const std::string& cell, const Principal& who, ResponsesRequest request)
    : runs_(runs),
      run_(prepare(runs, providers, cell, who, request)),
      head_{response_id(run_.live->id),   run_.model.model.id,     unix_now(),
            request.previous_response_id, run_.request.max_tokens, request.store},
      stream_(request.stream),
      background_(request.background) {}

std::string ResponseCall::answer(const std::function<bool()>& client_gone) {
  return response_object(head_, run_to_answer(runs_, run_, client_gone)).dump();
}

std::string ResponseCall::pending_object() const {
  json object = response_object(head_, RunSummary{});
  object["status"] = "in_progress";
  object["output"] = json::array();
  object["usage"] = nullptr;
  object["background"] = true;
  return object.dump();
}

void ResponseCall::run_unattended() {
  run_.provider_thread = CallThread::caller;
  const std::function<bool()> never_gone;
  AnswerOnlySink sink(never_gone);
  runs_.execute(run_, sink);
}

void ResponseCall::stream(RunSink& events, const std::function<bool()>& client_gone) {
  ResponseStreamSink sink(events, head_, client_gone);
  const std::string run_id = run_.live->id;
  const RunSummary summary = runs_.execute(run_, sink);
  if ((summary.failed || summary.reason == "interrupted") && !sink.started()) fail(summary, run_id);
  sink.finish(summary);
}

}  // namespace agentrt::core::openai
