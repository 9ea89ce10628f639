// The engine's request as Ollama's native /api/chat wants it.
#pragma once

#include "common/chat_request.h"
#include "common/http_stream.h"
#include "common/provider_config.h"

#include <string>

namespace agentrt::providers::ollama {

// POST {base_url}/api/chat, streaming NDJSON. `api_key` (for an Ollama behind an
// authenticating proxy) goes as a Bearer token when non-empty.
HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key);

// The JSON body alone: text parts joined into "content", inline images as bare
// base64 in "images".
std::string request_body(const ChatRequest& chat);

}  // namespace agentrt::providers::ollama
