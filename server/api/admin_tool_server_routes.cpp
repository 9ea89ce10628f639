#include "server/api/admin_routes.h"
#include "server/api/audited_route.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {

// The tool servers with their tools and health (docs/operator-guide.md, "Tool
// servers"): the config file's, and those saved here. GET asks each server, so it is
// an admin's look, never on a run's path; POST answers the same list.
void add_tool_server_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/tool-servers", RouteScope::root, RouteAccess::admin, true,
              audited(engine, "tool_server.upsert", 200,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = names_in(ctx.json, "servers");
                        return std::optional<nlohmann::json>(
                            engine.tool_server_admin().upsert(ctx.json));
                      })});
  router.add({"GET", "/admin/tool-servers", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext&, Response& response) {
                response.send_json(200, engine.tool_servers().list());
              }});
  router.add({"DELETE", "/admin/tool-servers/{name}", RouteScope::root, RouteAccess::admin, false,
              audited(engine, "tool_server.delete", 204,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = audit_text(ctx.param("name"));
                        engine.tool_server_admin().remove(ctx.param("name"));
                        return std::optional<nlohmann::json>();
                      })});
}

}  // namespace agentrt::server::api
