// Layered memory: save, list, get, delete, clear a layer, search, counts. Cell routes.
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void add_memory_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
