#include "server/http/limits_middleware.h"

namespace agentrt::server {

Middleware make_limits_middleware(core::Engine& engine) {
  return [limits = engine.limits()](RequestContext& ctx) {
    // Open routes (/health) have no caller to limit.
    if (limits == nullptr || !ctx.principal) return;
    limits->admit_request(*ctx.principal, ctx.cell);
  };
}

}  // namespace agentrt::server
