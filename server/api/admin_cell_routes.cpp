#include "server/api/admin_routes.h"

#include "core/domain/errors.h"
#include "server/http/response.h"

namespace agentrt::server::api {

void add_cell_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/admin/cells", RouteScope::root, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, core::to_json(engine.cells().create(ctx.json)));
              }});
  router.add(RouteSpec{
      "GET", "/admin/cells", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        auto page = core::parse_page_request(ctx.query_param("limit"), ctx.query_param("cursor"));
        response.send_json(200, engine.cells().list(page));
      }}.taking({"limit", "cursor"}));
  router.add({"GET", "/admin/cells/{id}", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                auto cell = engine.cells().find(ctx.param("id"));
                if (!cell) throw core::not_found("cell '" + ctx.param("id") + "' not found");
                response.send_json(200, core::to_json(*cell));
              }});
  router.add({"PATCH", "/admin/cells/{id}", RouteScope::root, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200,
                                   core::to_json(engine.cells().update(ctx.param("id"), ctx.json)));
              }});
  router.add({"DELETE", "/admin/cells/{id}", RouteScope::root, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                engine.cells().remove(ctx.param("id"));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
