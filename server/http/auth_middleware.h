// Authentication and authorisation of every route but the open ones (/health): the
// bearer token is verified by the engine's auth module, the principal is put on the
// request, and the route's access rule and cell are checked, all before the handler
// runs and before the body is parsed. Each 401 and 403 it answers goes to the audit log
// as an "auth.refused" entry (core/audit/audit_log.h).
#pragma once

#include "core/engine/engine.h"
#include "server/http/pipeline.h"

#include <string>
#include <string_view>

namespace agentrt::server {

// The token of an "Authorization: Bearer <token>" header, or "" when there is none.
std::string bearer_token(std::string_view authorization);

Middleware make_auth_middleware(core::Engine& engine);

}  // namespace agentrt::server
