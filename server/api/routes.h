// Every route of the API is registered from here, so that one call gives the router
// docs/openapi.yaml is checked against (tests/server/openapi_test.cpp).
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void register_api_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
