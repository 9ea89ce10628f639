#include "server/api/admin_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {

void add_provider_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/shared-providers", RouteScope::root, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200, engine.providers().upsert(ctx.json));
              }});
  router.add(RouteSpec{
      "GET", "/admin/shared-providers", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200, engine.providers().list(core::parse_page_request(
                                    ctx.query_param("limit"), ctx.query_param("cursor"))));
      }}.taking({"limit", "cursor"}));
  router.add({"DELETE", "/admin/shared-providers/{name}", RouteScope::root, RouteAccess::admin,
              false, [&engine](RequestContext& ctx, Response& response) {
                engine.providers().remove(ctx.param("name"));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
