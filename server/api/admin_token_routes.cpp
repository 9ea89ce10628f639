#include "server/api/admin_routes.h"
#include "server/api/audited_route.h"
#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {

void add_token_routes(Router& router, core::Engine& engine) {
  // Tokens live in the auth module's store: their entries are written right after.
  router.add({"POST", "/admin/tokens", RouteScope::root, RouteAccess::admin, true,
              audited(engine, "token.create", 201,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        nlohmann::json issued = engine.auth().issue(ctx.json);
                        audit.target = audit_text(issued.value("id", ""));
                        if (issued.contains("cell") && issued["cell"].is_string())
                          audit.cell = audit_text(issued["cell"].get<std::string>());
                        return std::optional<nlohmann::json>(std::move(issued));
                      })});
  router.add(RouteSpec{
      "GET", "/admin/tokens", RouteScope::root, RouteAccess::admin, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200,
                           engine.auth().list(ctx.query_param("limit"), ctx.query_param("cursor")));
      }}.taking({"limit", "cursor"}));
  router.add({"DELETE", "/admin/tokens/{id}", RouteScope::root, RouteAccess::admin, false,
              audited(engine, "token.revoke", 204,
                      [&engine](RequestContext& ctx, core::AuditEntry& audit) {
                        // A token pasted where its id belongs is cut from the entry.
                        audit.target = audit_text(ctx.param("id"));
                        try {
                          engine.auth().revoke(ctx.param("id"));
                        } catch (...) {
                          // What named no token may be a token's whole value, sent where
                          // its id belongs: the access log shows the path (ctx.path) and
                          // must not show that. A revoked id is no secret, and stays in
                          // the log.
                          ctx.path = "/admin/tokens/{id}";
                          throw;
                        }
                        return std::optional<nlohmann::json>();
                      })});
}

}  // namespace agentrt::server::api
