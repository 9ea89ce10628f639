#include "server/api/admin_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {

void add_token_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/tokens", RouteScope::root, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, engine.auth().issue(ctx.json));
              }});
  router.add({"GET", "/admin/tokens", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, engine.auth().list(ctx.query_param("limit"), ctx.query_param("cursor")));
              }});
  router.add({"DELETE", "/admin/tokens/{id}", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                engine.auth().revoke(ctx.param("id"));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
