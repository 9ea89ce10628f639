#include "server/http/auth_middleware.h"

#include "core/domain/errors.h"
#include "server/http/api_error.h"
#include "server/http/router.h"

#include <strings.h>

namespace agentrt::server {

std::string bearer_token(std::string_view authorization) {
  constexpr size_t scheme = 6;  // "Bearer"
  if (authorization.size() <= scheme + 1 ||
      ::strncasecmp(authorization.data(), "Bearer", scheme) != 0 || authorization[scheme] != ' ')
    return "";
  size_t start = authorization.find_first_not_of(' ', scheme);
  if (start == std::string_view::npos) return "";
  size_t end = authorization.find_last_not_of(" \t");
  return std::string(authorization.substr(start, end + 1 - start));
}

namespace {

// RFC 6750 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
// Anything else cannot be a token of any scheme, and its bytes need not be UTF-8, which
// the auth plugin's JSON could not carry.
bool is_b64token(std::string_view token) {
  const size_t end = token.find_last_not_of('=');
  if (end == std::string_view::npos) return false;
  for (char c : token.substr(0, end + 1)) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Middleware make_auth_middleware(core::Engine& engine) {
  return [&engine](RequestContext& ctx) {
    const RouteSpec& spec = ctx.route->spec;
    if (spec.access == RouteAccess::open) return;
    std::string token = bearer_token(ctx.authorization());
    if (token.empty())
      throw ApiError(ErrorCode::unauthorized,
                     "an Authorization: Bearer <token> header is required");
    if (!is_b64token(token))
      throw ApiError(ErrorCode::unauthorized, "the bearer token is malformed");
    ctx.principal = engine.auth().verify(token);
    if (spec.access == RouteAccess::admin) {
      if (spec.scope == RouteScope::root)
        core::require_engine_admin(*ctx.principal);
      else
        core::require_admin(*ctx.principal);
    }
    if (spec.scope == RouteScope::cell) {
      core::require_cell_access(*ctx.principal, ctx.cell);
      ctx.principal->cell_seq = engine.cells().incarnation(ctx.cell);
      if (!ctx.principal->cell_seq) throw core::not_found("cell '" + ctx.cell + "' not found");
    }
  };
}

}  // namespace agentrt::server
