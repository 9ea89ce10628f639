#include "server/api/routes.h"

#include "server/api/admin_routes.h"
#include "server/api/agent_routes.h"
#include "server/api/conversation_routes.h"
#include "server/api/health_routes.h"
#include "server/api/memory_routes.h"
#include "server/api/metrics_routes.h"
#include "server/api/openai_routes.h"

namespace agentrt::server::api {

void register_api_routes(Router& router, core::Engine& engine) {
  add_health_routes(router, engine);
  add_metrics_routes(router, engine);
  add_token_routes(router, engine);
  add_cell_routes(router, engine);
  add_cell_limit_routes(router, engine);
  add_provider_routes(router, engine);
  add_tool_server_routes(router, engine);
  add_audit_routes(router, engine);
  add_conversation_routes(router, engine);
  add_session_routes(router, engine);
  add_memory_routes(router, engine);
  add_agent_routes(router, engine);
  add_openai_routes(router, engine);
}

}  // namespace agentrt::server::api
