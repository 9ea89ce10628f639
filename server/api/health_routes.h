// GET /health: at the root in both modes, no auth; 503 when storage is unusable.
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

#include <nlohmann/json.hpp>

namespace agentrt::server::api {

struct HealthResponse {
  int status;
  nlohmann::json body;
};

HealthResponse health_response(const core::HealthReport& report);

void add_health_routes(Router& router, const core::Engine& engine);

}  // namespace agentrt::server::api
