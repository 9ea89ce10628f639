// The body of POST /run and /chat, validated: every refusal is a 400 naming the field,
// raised before a session or run exists, so nothing is half-written.
#pragma once

#include "core/providers/provider_config.h"
#include "core/runs/generation_options.h"
#include "core/runs/tool_spec.h"
#include "core/sessions/session_store.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core {

struct RunRequest {
  std::string model;  // empty: the agent's
  std::optional<std::string> agent_id;
  bool use_memory = true;  // "memory": false leaves memory out of the context
  // Each with its content as the store keeps it, and estimated.
  std::vector<StoredMessage> messages;
  std::optional<std::string> actor;
  std::optional<std::string> session_id;
  bool interrupt_if_busy = false;  // "if_busy":"interrupt"
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  GenerationOptions generation;           // set by the OpenAI-compatible routes only
  std::vector<ToolSpec> tools;            // the request's client tools (docs/tools.md)
  std::optional<ToolChoice> tool_choice;  // none given: auto
  std::optional<int64_t> max_steps;       // 1 to 64; none: the agent's, else 8
  // The messages are the whole context, as in OpenAI's Chat Completions
  // (docs/openai-compatible.md): no history or memory is added, and the tool messages
  // answer the calls of the request's own assistant messages, not calls pending on the
  // session. Set by a translation that builds `messages` itself; parse_run_request never
  // does.
  bool stateless = false;
};

// Reads the body's JSON text with the hot paths' reader (lib/text/json_reader.h), and
// refuses a body that is not JSON, nests too deep or writes a key twice with the words
// every route's body gets (parse_json_body, which says where).
RunRequest parse_run_request(std::string_view body);

// image_url parts only for models that support vision; tools only for models that take
// them (`tools`: the run's, the request's and its agent's).
void check_model_accepts(const RunRequest& request, const ModelInfo& model,
                         const std::vector<ToolSpec>& tools = {});

// An image_url part's URL as providers are sent it (its scheme in lower case), or none
// when it is neither an http(s) URL with a host nor a data:image/<type>;base64 URL.
std::optional<std::string> sendable_image_url(std::string url);

// 1 to 128 characters of [A-Za-z0-9._:-].
bool valid_session_id(const std::string& id);

}  // namespace agentrt::core
