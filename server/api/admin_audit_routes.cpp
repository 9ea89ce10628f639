#include "core/audit/audit_query.h"
#include "server/api/admin_routes.h"
#include "server/http/response.h"

namespace agentrt::server::api {

// Newest first, paged like every admin list (docs/openapi.yaml, listAudit).
void add_audit_routes(Router& router, core::Engine& engine) {
  router.add(RouteSpec{
      "GET", "/admin/audit", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        const core::AuditQuery query = core::parse_audit_query(
            ctx.query_param("limit"), ctx.query_param("cursor"), ctx.query_param("actor"),
            ctx.query_param("action"), ctx.query_param("since"), ctx.query_param("until"));
        response.send_json(200, engine.audit().list(query));
      }}.taking({"limit", "cursor", "actor", "action", "since", "until"}));
}

}  // namespace agentrt::server::api
