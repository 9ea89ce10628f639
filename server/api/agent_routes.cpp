#include "server/api/agent_routes.h"

#include "core/domain/errors.h"
#include "server/http/response.h"

namespace agentrt::server::api {

void add_agent_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/agents", RouteScope::cell, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, core::to_json(engine.agents().create(
                                            ctx.cell, ctx.json, ctx.principal->cell_seq)));
              }});
  router.add(RouteSpec{
      "GET", "/agents", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        auto page = core::parse_page_request(ctx.query_param("limit"), ctx.query_param("cursor"));
        response.send_json(200, engine.agents().list(ctx.cell, page));
      }}.taking({"limit", "cursor"}));
  router.add({"GET", "/agents/{aid}", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                auto agent = engine.agents().find(ctx.cell, ctx.param("aid"));
                if (!agent) throw core::not_found("agent '" + ctx.param("aid") + "' not found");
                response.send_json(200, core::to_json(*agent));
              }});
  router.add({"PATCH", "/agents/{aid}", RouteScope::cell, RouteAccess::admin, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200, core::to_json(engine.agents().update(
                                            ctx.cell, ctx.param("aid"), ctx.json)));
              }});
  router.add({"DELETE", "/agents/{aid}", RouteScope::cell, RouteAccess::admin, false,
              [&engine](RequestContext& ctx, Response& response) {
                engine.agents().remove(ctx.cell, ctx.param("aid"));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
