// The admin surface: tokens, cells and their limits, shared providers, tool servers and
// the audit log. Root routes in both modes, admin tokens only (the auth middleware
// enforces RouteAccess::admin).
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void add_token_routes(Router& router, core::Engine& engine);
void add_cell_routes(Router& router, core::Engine& engine);
void add_cell_limit_routes(Router& router, core::Engine& engine);
void add_provider_routes(Router& router, core::Engine& engine);
void add_tool_server_routes(Router& router, core::Engine& engine);
// GET /admin/audit (core/audit/audit_log.h).
void add_audit_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
