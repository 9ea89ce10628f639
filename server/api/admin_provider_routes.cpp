#include "server/api/admin_routes.h"
#include "server/api/audited_route.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {

void add_provider_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/shared-providers", RouteScope::root, RouteAccess::admin, true,
              audited(engine, "provider.upsert", 200,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = names_in(ctx.json, "providers");
                        return std::optional<nlohmann::json>(engine.providers().upsert(ctx.json));
                      })});
  router.add(RouteSpec{
      "GET", "/admin/shared-providers", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200, engine.providers().list(core::parse_page_request(
                                    ctx.query_param("limit"), ctx.query_param("cursor"))));
      }}.taking({"limit", "cursor"}));
  router.add({"DELETE", "/admin/shared-providers/{name}", RouteScope::root, RouteAccess::admin,
              false,
              audited(engine, "provider.delete", 204,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = audit_text(ctx.param("name"));
                        engine.providers().remove(ctx.param("name"));
                        return std::optional<nlohmann::json>();
                      })});
}

}  // namespace agentrt::server::api
