// A POST /v1/chat/completions body (docs/openai-compatible.md) read into the stateless
// run it asks for. Every refusal is a 400 naming OpenAI's field (openai_fields.h), raised
// before a session or run exists. The OpenAI parameters agentrt has no use for are
// accepted and ignored (kIgnoredParameters); any other key is refused, as OpenAI does.
#pragma once

#include "core/runs/run_request.h"

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core::openai {

struct ChatCompletionRequest {
  // Stateless, without memory; `actor` is left for the caller to set from `user`.
  RunRequest run;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  std::optional<std::string> user;
};

// The OpenAI parameters accepted and ignored.
inline constexpr std::string_view kIgnoredParameters[] = {"audio",
                                                          "logit_bias",
                                                          "logprobs",
                                                          "metadata",
                                                          "modalities",
                                                          "prediction",
                                                          "prompt_cache_key",
                                                          "prompt_cache_retention",
                                                          "reasoning_effort",
                                                          "response_format",
                                                          "safety_identifier",
                                                          "service_tier",
                                                          "store",
                                                          "top_logprobs",
                                                          "verbosity",
                                                          "web_search_options"};

ChatCompletionRequest parse_chat_completion(std::string_view body);

}  // namespace agentrt::core::openai
