// The engine's request as Ollama's native /api/chat wants it.
#pragma once

#include "common/chat_request.h"
#include "common/http_stream.h"
#include "common/provider_config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::providers::ollama {

// POST {base_url}/api/chat, streaming NDJSON. `api_key` (for an Ollama behind an
// authenticating proxy) goes as a Bearer token when non-empty.
HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key);

// The JSON body alone: text parts joined into "content", inline images as bare
// base64 in "images", `num_ctx`, when given, in "options", an answer's tool calls
// with their arguments as objects, one "tool" message a result (named by its tool),
// and the tools the tool_choice leaves (Ollama has no tool_choice of its own).
std::string request_body(const ChatRequest& chat);
std::string request_body(const ChatRequest& chat, std::optional<int64_t> num_ctx);

}  // namespace agentrt::providers::ollama
