#include "server/api/health_routes.h"

#include "core/version.h"
#include "server/http/response.h"

#include <cmath>

namespace agentrt::server::api {

HealthResponse health_response(const core::HealthReport& report) {
  nlohmann::json plugins = nlohmann::json::array();
  for (const core::PluginSummary& plugin : report.plugins) {
    plugins.push_back({{"name", plugin.name}, {"kind", plugin.kind}, {"version", plugin.version}});
  }
  nlohmann::json body = {
      {"status", report.storage_ok ? "ok" : "degraded"},
      {"version", AGENTRT_VERSION},
      {"uptime_s", std::floor(report.uptime_s * 1000.0) / 1000.0},
      {"storage", report.storage_ok ? "ok" : "unavailable"},
      {"plugins", std::move(plugins)},
  };
  return {report.storage_ok ? 200 : 503, std::move(body)};
}

void add_health_routes(Router& router, const core::Engine& engine) {
  router.add({"GET", "/health", RouteScope::root, RouteAccess::open, false,
              [&engine](RequestContext&, Response& response) {
                HealthResponse health = health_response(engine.health());
                response.send_json(health.status, health.body);
              }});
}

}  // namespace agentrt::server::api
