// Rate limits on every request that carries a token (core/limits/limits.h): after the
// auth middleware, which establishes who is calling and in which cell, and before the
// body is parsed, so that a refused request costs agentd a look-up and a CAS. A refusal
// is 429 rate_limited with Retry-After, in OpenAI's shape on /v1 paths.
#pragma once

#include "core/engine/engine.h"
#include "server/http/pipeline.h"

namespace agentrt::server {

Middleware make_limits_middleware(core::Engine& engine);

}  // namespace agentrt::server
