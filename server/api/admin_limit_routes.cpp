// GET and PUT /admin/cells/{id}/limits: a cell's own rate limits and quotas over the
// config's defaults (core/limits/limits.h), for an admin of the whole engine only: a
// tenant's cell admin cannot raise its own.
#include "server/api/admin_routes.h"

#include "core/domain/errors.h"
#include "server/api/audited_route.h"
#include "server/http/api_error.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

#include <stdexcept>

namespace agentrt::server::api {
namespace {

core::limits::Limits& limits_of(core::Engine& engine) {
  core::limits::Limits* limits = engine.limits();
  if (limits == nullptr) throw std::logic_error("the engine keeps no limits");
  return *limits;
}

void get_limits(core::Engine& engine, RequestContext& ctx, Response& response) {
  const std::string& cell = ctx.param("id");
  auto hold = engine.cells().hold(cell);
  if (!hold) throw core::not_found("cell '" + cell + "' not found");
  response.send_json(200, limits_of(engine).report(cell));
}

// Held in the cell's fence from the check that it exists to the stored row: a deletion
// either comes after, and takes the row with the cell, or before, and this is a 404.
nlohmann::json put_limits(core::Engine& engine, RequestContext& ctx) {
  const std::string& cell = ctx.param("id");
  auto hold = engine.cells().hold(cell);
  if (!hold) throw core::not_found("cell '" + cell + "' not found");
  try {
    return limits_of(engine).set_own(cell, ctx.json);
  } catch (const core::limits::LimitValueError& e) {
    throw ApiError(ErrorCode::invalid_request, e.what()).with_param(e.field());
  }
}

}  // namespace

void add_cell_limit_routes(Router& router, core::Engine& engine) {
  router.add(
      {"GET", "/admin/cells/{id}/limits", RouteScope::root, RouteAccess::admin, false,
       [&engine](RequestContext& ctx, Response& response) { get_limits(engine, ctx, response); }});
  router.add(
      {"PUT", "/admin/cells/{id}/limits", RouteScope::root, RouteAccess::admin, true,
       audited(engine, "cell.limits", 200, [&engine](RequestContext& ctx, core::AuditEntry& audit) {
         audit.target = audit.cell = audit_text(ctx.param("id"));
         return std::optional<nlohmann::json>(put_limits(engine, ctx));
       })});
}

}  // namespace agentrt::server::api
