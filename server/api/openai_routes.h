// The OpenAI-compatible surface (docs/openai-compatible.md): POST /v1/chat/completions,
// GET /v1/models and GET /v1/models/{model}, cell routes (at the root in single-cell
// mode, under /cells/{cellID} in multi-cell mode) whose API key is an agentrt token.
// Every error on their paths, from the auth middleware's 401 to a path no route has,
// has OpenAI's shape {"error":{"message","type","param","code"}}; the translation
// itself lives in core/openai.
#pragma once

#include "core/engine/engine.h"
#include "server/http/api_error.h"
#include "server/http/router.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace agentrt::server::api {

void add_openai_routes(Router& router, core::Engine& engine);

// OpenAI's error body for `error`: `type` from its status (invalid_request_error,
// authentication_error, permission_error, not_found_error, rate_limit_error,
// server_error), `code` agentrt's code, `param` the field at fault or null.
nlohmann::json openai_error_body(const ApiError& error, std::string_view request_id);

}  // namespace agentrt::server::api
