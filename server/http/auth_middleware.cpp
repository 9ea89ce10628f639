#include "server/http/auth_middleware.h"

#include "core/cells/cell_rules.h"
#include "core/domain/errors.h"
#include "server/http/api_error.h"
#include "server/http/audit_context.h"
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

// What the audit log learns of a refused request as it is checked.
struct Refusal {
  std::string token;
  const char* reason = "missing";
};

// The public id of a bundled auth-token token ("art_" + 16 hex digits + 43 characters of
// secret): the 16 digits; none for any other shape, whose parts are unknown.
std::optional<std::string> public_token_id(std::string_view token) {
  constexpr std::string_view kPrefix = "art_";
  constexpr size_t kIdLength = 16, kSecretLength = 43;
  if (token.size() != kPrefix.size() + kIdLength + kSecretLength || token.substr(0, 4) != kPrefix)
    return std::nullopt;
  const std::string_view id = token.substr(kPrefix.size(), kIdLength);
  if (id.find_first_not_of("0123456789abcdef") != std::string_view::npos) return std::nullopt;
  return std::string(id);
}

// The auth module's word for why a token does not verify (core/auth/auth_service.h:
// its message says which).
const char* verify_reason(const std::string& message) {
  for (const char* word : {"expired", "revoked", "malformed", "unknown"})
    if (message.find(word) != std::string::npos) return word;
  return "refused";
}

void authorize(core::Engine& engine, RequestContext& ctx, Refusal& refusal) {
  const RouteSpec& spec = ctx.route->spec;
  refusal.token = bearer_token(ctx.authorization());
  if (refusal.token.empty())
    throw ApiError(ErrorCode::unauthorized, "an Authorization: Bearer <token> header is required");
  refusal.reason = "malformed";
  if (!is_b64token(refusal.token))
    throw ApiError(ErrorCode::unauthorized, "the bearer token is malformed");
  try {
    ctx.principal = engine.auth().verify(refusal.token);
  } catch (const core::DomainError& e) {
    refusal.reason = verify_reason(e.what());
    throw;
  }
  refusal.reason = ctx.principal->admin ? "cell_scope" : "not_admin";
  if (spec.access == RouteAccess::admin) {
    if (spec.scope == RouteScope::root)
      core::require_engine_admin(*ctx.principal);
    else
      core::require_admin(*ctx.principal);
  }
  if (spec.scope == RouteScope::cell) {
    refusal.reason = "cell_scope";
    core::require_cell_access(*ctx.principal, ctx.cell);
    ctx.principal->cell_seq = engine.cells().incarnation(ctx.cell);
    if (!ctx.principal->cell_seq) throw core::not_found("cell '" + ctx.cell + "' not found");
  }
}

// A 401 or 403 of the middleware, into the audit log: the token's public id and never
// the token; its principal's actor once it verified (a 403).
void record_refusal(core::Engine& engine, const RequestContext& ctx, const Refusal& refusal,
                    const ApiError& error) {
  if (error.http_status() != 401 && error.http_status() != 403) return;
  core::AuditEntry entry = audit_entry_for(ctx, core::kAuthRefused);
  entry.kind = core::AuditKind::refusal;
  if (!ctx.principal) entry.token_id = public_token_id(refusal.token);
  if (!core::valid_cell_id(ctx.cell)) entry.cell.reset();  // a path segment, not a cell
  entry.target = ctx.method + " " + ctx.route->mounted_path;
  entry.status = error.http_status();
  entry.error = error.code();
  entry.detail = refusal.reason;
  engine.audit().refused(entry);
}

}  // namespace

Middleware make_auth_middleware(core::Engine& engine) {
  return [&engine](RequestContext& ctx) {
    if (ctx.route->spec.access == RouteAccess::open) return;
    Refusal refusal;
    try {
      authorize(engine, ctx, refusal);
    } catch (const ApiError& e) {
      record_refusal(engine, ctx, refusal, e);
      throw;
    } catch (const core::DomainError& e) {
      record_refusal(engine, ctx, refusal, from_domain_error(e));
      throw;
    }
  };
}

}  // namespace agentrt::server
