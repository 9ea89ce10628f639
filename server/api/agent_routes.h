// Agents of a cell: any token of the cell reads them; admin tokens create, change and
// delete them (deleting an agent deletes its namespace's agent_memory for every actor).
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void add_agent_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
