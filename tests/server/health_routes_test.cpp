#include "server/api/health_routes.h"

#include "core/version.h"

#include <gtest/gtest.h>

namespace agentrt::server::api {
namespace {

TEST(HealthRoutes, HealthyReportIs200Ok) {
  core::HealthReport report;
  report.storage_ok = true;
  report.uptime_s = 12.34567;
  report.plugins = {{"echo", "provider", "1.0.0"}};
  const HealthResponse health = health_response(report);
  EXPECT_EQ(health.status, 200);
  const nlohmann::json expected = {
      {"status", "ok"},
      {"version", AGENTRT_VERSION},
      {"uptime_s", 12.345},
      {"storage", "ok"},
      {"plugins", {{{"name", "echo"}, {"kind", "provider"}, {"version", "1.0.0"}}}}};
  EXPECT_EQ(health.body, expected);
}

TEST(HealthRoutes, UnusableStorageIs503Degraded) {
  core::HealthReport report;
  report.storage_ok = false;
  const HealthResponse health = health_response(report);
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body["status"], "degraded");
  EXPECT_EQ(health.body["storage"], "unavailable");
  EXPECT_TRUE(health.body["plugins"].is_array());
}

}  // namespace
}  // namespace agentrt::server::api
