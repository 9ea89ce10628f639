#include "server/api/admin_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {

// The config file's tool servers with their tools and health (docs/tools.md). The list
// asks each server, so it is an admin's look, never on a run's path.
void add_tool_server_routes(Router& router, core::Engine& engine) {
  router.add({"GET", "/admin/tool-servers", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext&, Response& response) {
                response.send_json(200, engine.tool_servers().list());
              }});
}

}  // namespace agentrt::server::api
