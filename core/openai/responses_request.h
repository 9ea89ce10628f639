// A POST /v1/responses body (docs/openai-compatible.md) read into the run it asks for.
// Every refusal is a 400 naming OpenAI's field (openai_fields.h), raised before a
// session or run exists. `input` items become the run's messages in the store's form:
//   a string, or {"role","content"} messages -> user/system/assistant messages
//   consecutive function_call items          -> one assistant message of tool_call parts
//   function_call_output                     -> a tool message (one tool_result part)
#pragma once

#include "core/runs/run_request.h"

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core::openai {

struct ResponsesRequest {
  // Stateless unless it continues a response; `actor` and `session_id` are the caller's
  // to set (from `user`, or from the previous response's run).
  RunRequest run;
  std::optional<std::string> previous_response_id;
  std::optional<std::string> user;
  bool stream = false;
  bool background = false;
  bool store = true;
};

ResponsesRequest parse_responses_request(std::string_view body);

}  // namespace agentrt::core::openai
