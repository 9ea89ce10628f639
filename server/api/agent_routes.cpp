#include "server/api/agent_routes.h"

#include "core/domain/errors.h"
#include "server/api/audited_route.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {

void add_agent_routes(Router& router, core::Engine& engine) {
  // An agent's id is made by its create, inside the write its entry rides in: the
  // entry names the agent by its name, unique in the cell, and later ones by its id.
  router.add({"POST", "/agents", RouteScope::cell, RouteAccess::admin, true,
              audited(engine, "agent.create", 201,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        if (ctx.json.is_object() && ctx.json.contains("name") &&
                            ctx.json["name"].is_string())
                          audit.target = audit_text(ctx.json["name"].get<std::string>());
                        return std::optional<nlohmann::json>(core::to_json(
                            engine.agents().create(ctx.cell, ctx.json, ctx.principal->cell_seq)));
                      })});
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
              audited(engine, "agent.update", 200,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = audit_text(ctx.param("aid"));
                        return std::optional<nlohmann::json>(core::to_json(
                            engine.agents().update(ctx.cell, ctx.param("aid"), ctx.json)));
                      })});
  router.add({"DELETE", "/agents/{aid}", RouteScope::cell, RouteAccess::admin, false,
              audited(engine, "agent.delete", 204,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        audit.target = audit_text(ctx.param("aid"));
                        engine.agents().remove(ctx.cell, ctx.param("aid"));
                        return std::optional<nlohmann::json>();
                      })});
}

}  // namespace agentrt::server::api
