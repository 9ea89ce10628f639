#include "core/domain/errors.h"
#include "server/api/admin_routes.h"
#include "server/api/audited_route.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {
namespace {

// The id a create names, when it names one as a string.
std::optional<std::string> body_id(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("id") || !body["id"].is_string()) return std::nullopt;
  return audit_text(body["id"].get<std::string>());
}

}  // namespace

void add_cell_routes(Router& router, core::Engine& engine) {
  router.add(
      {"POST", "/admin/cells", RouteScope::root, RouteAccess::admin, true,
       audited(engine, "cell.create", 201, [&engine](RequestContext& ctx, core::AuditEntry& audit) {
         audit.target = audit.cell = body_id(ctx.json);
         return std::optional<nlohmann::json>(core::to_json(engine.cells().create(ctx.json)));
       })});
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
  router.add(
      {"PATCH", "/admin/cells/{id}", RouteScope::root, RouteAccess::admin, true,
       audited(engine, "cell.update", 200, [&engine](RequestContext& ctx, core::AuditEntry& audit) {
         audit.target = audit.cell = audit_text(ctx.param("id"));
         return std::optional<nlohmann::json>(
             core::to_json(engine.cells().update(ctx.param("id"), ctx.json)));
       })});
  router.add(
      {"DELETE", "/admin/cells/{id}", RouteScope::root, RouteAccess::admin, false,
       audited(engine, "cell.delete", 204, [&engine](RequestContext& ctx, core::AuditEntry& audit) {
         audit.target = audit.cell = audit_text(ctx.param("id"));
         engine.cells().remove(ctx.param("id"));
         return std::optional<nlohmann::json>();
       })});
}

}  // namespace agentrt::server::api
