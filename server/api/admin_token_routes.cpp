#include "server/api/admin_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {

void add_token_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/tokens", RouteScope::root, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, engine.auth().issue(ctx.json));
              }});
  router.add(RouteSpec{
      "GET", "/admin/tokens", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200,
                           engine.auth().list(ctx.query_param("limit"), ctx.query_param("cursor")));
      }}.taking({"limit", "cursor"}));
  router.add({"DELETE", "/admin/tokens/{id}", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                try {
                  engine.auth().revoke(ctx.param("id"));
                } catch (...) {
                  // What named no token may be a token's whole value, sent where its id
                  // belongs: the access log shows the path (ctx.path) and must not
                  // show that. A revoked id is no secret, and stays in the log.
                  ctx.path = "/admin/tokens/{id}";
                  throw;
                }
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
