// The engine's request as OpenAI Chat Completions wants it.
#pragma once

#include "common/chat_request.h"
#include "common/http_stream.h"
#include "common/provider_config.h"

#include <string>

namespace agentrt::providers::openai {

// POST {base_url}/chat/completions, streaming with usage.
HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key);

// The JSON body alone.
std::string request_body(const ChatRequest& chat);

}  // namespace agentrt::providers::openai
