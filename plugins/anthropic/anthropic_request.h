// The engine's request as the Anthropic Messages API wants it.
#pragma once

#include "common/chat_request.h"
#include "common/http_stream.h"
#include "common/provider_config.h"

#include <string>

namespace agentrt::providers::anthropic {

// The API refuses a request without max_tokens; this is what we ask for when the
// engine did not say.
constexpr int64_t kDefaultMaxTokens = 4096;

// POST {base_url}/v1/messages, streaming.
HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key);

// The JSON body alone: system messages become the top-level "system"; tools become
// "tools" (parameters as "input_schema") and "tool_choice" (required as "any");
// an assistant's tool calls become tool_use blocks after its text; tool messages
// become tool_result blocks at the start of one user message with the user message
// after them, as the API wants results in the user turn that follows the calls.
std::string request_body(const ChatRequest& chat);

}  // namespace agentrt::providers::anthropic
