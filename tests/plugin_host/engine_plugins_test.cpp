// The engine with a mix of good and bad plugins enabled: the bad ones are left out
// with their reason and the engine serves on with the rest.
#include "core/engine/engine.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace agentrt::core {
namespace {

class EnginePlugins : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("agentrt-engine-test-" + std::to_string(::getpid()));
    config.data_dir = dir.string();
    config.plugins["echo"] = PluginConfig{};
    config.plugins["fixture-v1_0"] = PluginConfig{};
    config.plugins["sdk-throwing"] = PluginConfig{};
    config.plugins["absent-plugin"] = PluginConfig{};
    config.plugins["bad-magic"] = PluginConfig{};  // named, so that it is opened and refused
    config.plugins["fixture-future-minor"] = PluginConfig{false, nlohmann::json::object()};
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::vector<std::string> dirs() const {
    return {AGENTRT_TEST_BUNDLED_DIR, AGENTRT_TEST_FIXTURE_DIR};
  }
  std::filesystem::path dir;
  Config config;
};

std::vector<std::string> names(const HealthReport& report) {
  std::vector<std::string> out;
  for (const auto& p : report.plugins) out.push_back(p.name);
  return out;
}

TEST_F(EnginePlugins, BadPluginsAreLeftOutAndTheRestWork) {
  Engine engine(config, dirs());
  engine.start();
  HealthReport health = engine.health();
  EXPECT_TRUE(health.storage_ok);
  auto loaded = names(health);
  EXPECT_TRUE(std::find(loaded.begin(), loaded.end(), "echo") != loaded.end());
  EXPECT_TRUE(std::find(loaded.begin(), loaded.end(), "fixture-v1_0") != loaded.end());
  EXPECT_TRUE(std::find(loaded.begin(), loaded.end(), "sdk-throwing") == loaded.end());
  ASSERT_TRUE(engine.provider("echo"));
  EXPECT_FALSE(engine.provider("sdk-throwing"));
  EXPECT_FALSE(engine.provider("fixture-future-minor")) << "disabled plugins get no instance";
}

void expect_refusals_explained(const std::vector<PluginStatus>& statuses) {
  bool saw_throwing = false, saw_magic = false;
  for (const PluginStatus& s : statuses) {
    if (s.name == "sdk-throwing") {
      saw_throwing = true;
      EXPECT_FALSE(s.loaded);
      EXPECT_EQ(s.error, "create failed: constructor exploded on purpose");
    }
    if (s.path.find("bad-magic") != std::string::npos) {
      saw_magic = true;
      EXPECT_NE(s.error.find("bad magic"), std::string::npos);
    }
    if (s.name == "echo") {
      EXPECT_TRUE(s.loaded) << s.error;
    }
  }
  EXPECT_TRUE(saw_throwing);
  EXPECT_TRUE(saw_magic);
}

TEST_F(EnginePlugins, StatusesExplainEveryRefusalBeforeStart) {
  Engine idle(config, dirs());
  expect_refusals_explained(idle.plugin_statuses());
  EXPECT_FALSE(std::filesystem::exists(dir)) << "listing plugins must not create the data dir";
}

TEST_F(EnginePlugins, StatusesExplainEveryRefusalAfterStart) {
  Engine engine(config, dirs());
  engine.start();
  expect_refusals_explained(engine.plugin_statuses());
}

}  // namespace
}  // namespace agentrt::core
