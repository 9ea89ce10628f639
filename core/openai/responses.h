// One POST /v1/responses (docs/openai-compatible.md): the run it asks for, in a new
// session of the acting actor or, with previous_response_id, on that response's run's
// session, whose history is then the context; answered as a response object.
#pragma once

#include "core/auth/principal.h"
#include "core/openai/responses_request.h"
#include "core/providers/provider_registry.h"
#include "core/runs/run_service.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace agentrt::core::openai {

// "resp_" and the run id without its "run_", and back (none when `id` is not one).
std::string response_id(std::string_view run_id);
std::optional<std::string> run_of_response(std::string_view id);

// What a response object says besides its run's outcome.
struct ResponseHead {
  std::string id, model;
  int64_t created_at = 0;
  std::optional<std::string> previous_response_id;
  std::optional<int64_t> max_output_tokens;
  bool store = true;
};

// The response object of a run that ended as `summary` says.
nlohmann::json response_object(const ResponseHead& head, const RunSummary& summary);

class ResponseCall {
 public:
  // Refuses (openai_fields.h) before anything is stored: an unknown model is 404
  // model_not_found, a previous_response_id that names no run `who` may see is 404.
  ResponseCall(RunService& runs, const ProviderRegistry& providers, const std::string& cell,
               const Principal& who, ResponsesRequest request);

  const PreparedRun& run() const { return run_; }
  bool streams() const { return stream_; }

  // The response object's JSON text; a run that failed throws its error, as /chat does.
  std::string answer(const std::function<bool()>& client_gone);
  // The Responses events into `events` (response_stream.h). A run that fails before its
  // first event throws instead, with nothing sent, so that the client gets the error's
  // HTTP status.
  void stream(RunSink& events, const std::function<bool()>& client_gone);
  bool background() const { return background_; }
  // A background response's answer: the object `in_progress`, its output to come.
  std::string pending_object() const;
  // Runs to its end with nobody reading (background: true).
  void run_unattended();

 private:
  RunService& runs_;
  PreparedRun run_;
  ResponseHead head_;
  bool stream_ = false;
  bool background_ = false;
};

}  // namespace agentrt::core::openai
