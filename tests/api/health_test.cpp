// GET /health against the real agentd, in both modes and with storage pulled away.
#include "tests/api/admin_client.h"
#include "tests/api/agentd_process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace agentrt::test {
namespace {

std::set<std::string> keys_of(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

const nlohmann::json* find_plugin(const nlohmann::json& plugins, const std::string& name) {
  for (const nlohmann::json& plugin : plugins) {
    if (plugin.value("name", "") == name) return &plugin;
  }
  return nullptr;
}

void expect_health_shape(const HttpResponse& response, const std::string& status,
                         const std::string& storage) {
  EXPECT_EQ(response.header("Content-Type"), "application/json");
  EXPECT_FALSE(response.header("X-Request-Id").empty());
  const nlohmann::json body = response.json();
  ASSERT_TRUE(body.is_object()) << response.body;
  EXPECT_EQ(keys_of(body),
            (std::set<std::string>{"status", "version", "uptime_s", "storage", "plugins"}));
  EXPECT_EQ(body["status"], status);
  EXPECT_EQ(body["storage"], storage);
  ASSERT_TRUE(body["uptime_s"].is_number());
  EXPECT_GE(body["uptime_s"].get<double>(), 0.0);
  ASSERT_TRUE(body["version"].is_string());
  // The same version `agentd version` prints.
  const CommandResult version = run_agentd({"version"});
  EXPECT_NE(version.out.find(" " + body["version"].get<std::string>() + " "), std::string::npos)
      << version.out;
  ASSERT_TRUE(body["plugins"].is_array());
  const nlohmann::json* echo = find_plugin(body["plugins"], "echo");
  ASSERT_NE(echo, nullptr) << "the bundled echo plugin is missing: " << response.body;
  EXPECT_EQ(keys_of(*echo), (std::set<std::string>{"name", "kind", "version"}));
  EXPECT_EQ((*echo)["kind"], "provider");
  EXPECT_FALSE((*echo)["version"].get<std::string>().empty());
}

// No --plugin-dir and no AGENTRT_PLUGIN_DIRS: echo comes from the build tree's bundled
// plugin directory, found relative to the binary.
TEST(Health, SingleModeIsOkAndListsBundledEcho) {
  AgentdProcess agentd;
  const HttpResponse response = agentd.request("GET", "/health");
  EXPECT_EQ(response.status, 200);
  expect_health_shape(response, "ok", "ok");
}

// A plugin the config disables is not usable: /health leaves it out, and no shared
// provider may be of its type, or an operator who disables openai to forbid remote calls
// could still have them through a shared provider.
TEST(Health, ADisabledPluginIsNeitherListedNorATypeForSharedProviders) {
  TempDir dir;
  AgentdProcess agentd(with_args(
      {"--config", dir.write("config.json", R"({"plugins": {"openai": {"enabled": false}}})")}));
  const nlohmann::json plugins = agentd.request("GET", "/health").json()["plugins"];
  EXPECT_EQ(find_plugin(plugins, "openai"), nullptr) << plugins;
  EXPECT_NE(find_plugin(plugins, "anthropic"), nullptr) << plugins;
  const std::string admin = first_admin_token(agentd);
  const nlohmann::json shared = {{"providers",
                                  {{{"name", "remote"},
                                    {"type", "openai"},
                                    {"base_url", "http://127.0.0.1:9/v1"},
                                    {"models", {{{"id", "m"}, {"context_window", 1000}}}}}}}};
  const HttpResponse refused = call(agentd, "POST", "/admin/shared-providers", admin, shared);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("names no provider plugin that is loaded and enabled; available: "
                              "anthropic, echo, ollama"),
            std::string::npos)
      << refused.body;
}

TEST(Health, MultiModeServesHealthAtTheRootOnly) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  const HttpResponse health = agentd.request("GET", "/health");
  EXPECT_EQ(health.status, 200);
  expect_health_shape(health, "ok", "ok");

  const HttpResponse under_cell = agentd.request("GET", "/cells/x/health");
  EXPECT_EQ(under_cell.status, 404);
  EXPECT_EQ(under_cell.json()["error"]["code"], "not_found");
  EXPECT_TRUE(agentd.wait_for_log([](const nlohmann::json& line) {
    return line.value("msg", "") == "listening" && line.value("mode", "") == "multi";
  }));
}

TEST(Health, SingleModeHasNoCellPrefix) {
  AgentdProcess agentd;
  EXPECT_EQ(agentd.request("GET", "/cells/default/health").status, 404);
  EXPECT_TRUE(agentd.wait_for_log([](const nlohmann::json& line) {
    return line.value("msg", "") == "listening" && line.value("mode", "") == "single";
  }));
}

TEST(Health, DegradedWhenTheDataDirIsRemoved) {
  AgentdProcess agentd;
  ASSERT_EQ(agentd.request("GET", "/health").status, 200);
  std::filesystem::remove_all(agentd.data_dir());

  const HttpResponse response = agentd.request("GET", "/health");
  EXPECT_EQ(response.status, 503);
  expect_health_shape(response, "degraded", "unavailable");
  // Still a working server: it shuts down cleanly.
  EXPECT_EQ(agentd.stop(SIGTERM), 0);
}

}  // namespace
}  // namespace agentrt::test
