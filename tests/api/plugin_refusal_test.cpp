// agentd pointed at a directory of broken plugins: each is refused with its file and
// reason in the log, the good ones load, and the engine serves on.
#include "tests/api/agentd_process.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

namespace agentrt::test {
namespace {

using nlohmann::json;

std::string fixture_config(const TempDir& dir) {
  return dir.write("config.json", R"({
    "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
    "plugins": {"fixture-v1_0": {}, "sdk-throwing": {}, "raw-throwing": {},
                "list-fails": {}, "list-bad": {}}
  })");
}

TEST(PluginRefusal, EveryBrokenPluginIsRefusedAndTheEngineServesOn) {
  TempDir config_dir;
  AgentdProcess agentd(with_args({"--config", fixture_config(config_dir)}));

  auto health = agentd.request("GET", "/health");
  ASSERT_EQ(health.status, 200) << health.body;
  std::set<std::string> usable;
  for (const auto& p : health.json()["plugins"]) usable.insert(p["name"]);
  EXPECT_TRUE(usable.count("echo"));
  EXPECT_TRUE(usable.count("fixture-v1_0"));
  EXPECT_TRUE(usable.count("fixture-future-minor"));
  EXPECT_FALSE(usable.count("sdk-throwing"));
  EXPECT_FALSE(usable.count("raw-throwing"));
  EXPECT_FALSE(usable.count("list-fails"));
  EXPECT_FALSE(usable.count("list-bad"));

  const std::map<std::string, std::string> expected = {
      {"bad-magic.so", "bad magic"},
      {"wrong-major.so", "ABI major version 2"},
      {"short-descriptor.so", "descriptor struct_size 24"},
      {"short-table.so", "provider table struct_size 16"},
      {"missing-function.so", "required function 'complete'"},
      {"unknown-kind.so", "unknown plugin kind 9"},
      {"not-a-plugin.so", "exports no agentrt_plugin_query"},
      {"garbage.so", "cannot load the library"},
      // A provider whose model list fails or breaks the SDK's shape once stopped serve.
      {"list-fails.so", "its list_models failed: model list: upstream not reachable"},
      {"list-bad.so", "breaks the SDK's shape: field 'models[0].id' must be a string"}};
  std::map<std::string, std::string> refused;  // file -> reason, from the log
  for (const json& line : agentd.log_lines()) {
    if (line.value("msg", "") != "plugin refused" || !line.contains("path")) continue;
    std::string path = line["path"];
    refused[path.substr(path.rfind('/') + 1)] = line.value("reason", "");
  }
  for (const auto& [file, reason] : expected) {
    ASSERT_TRUE(refused.count(file)) << file << " was not reported as refused";
    EXPECT_NE(refused[file].find(reason), std::string::npos) << file << ": " << refused[file];
  }
  bool throwing_reported = false;
  for (const json& line : agentd.log_lines())
    if (line.value("msg", "") == "plugin refused" && line.value("name", "") == "sdk-throwing")
      throwing_reported =
          line.value("reason", "").find("constructor exploded on purpose") != std::string::npos;
  EXPECT_TRUE(throwing_reported);
  EXPECT_EQ(agentd.stop(SIGTERM), 0);
}

// serve starts without them and only logs them; check-config names them and exits 1,
// as it does for every plugin serve would leave out.
TEST(PluginRefusal, CheckConfigNamesAProviderWhoseModelListFails) {
  TempDir config_dir;
  auto result = run_agentd({"check-config", "--config", fixture_config(config_dir)});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.err.find("list-fails"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("model list: upstream not reachable"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("list-bad"), std::string::npos) << result.err;
}

TEST(PluginRefusal, PluginsVerbGivesEveryFileAndReason) {
  TempDir config_dir;
  auto result = run_agentd({"plugins", "--json", "--config", fixture_config(config_dir)});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, json> by_file;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    json entry = json::parse(line, nullptr, false);
    if (!entry.is_object()) continue;
    std::string path = entry.value("path", "");
    by_file[path.substr(path.rfind('/') + 1)] = entry;
  }
  ASSERT_TRUE(by_file.count("agentrt-echo.so")) << result.out;
  EXPECT_EQ(by_file["agentrt-echo.so"]["loaded"], true);
  EXPECT_EQ(by_file["fixture-v1_0.so"]["loaded"], true);
  EXPECT_EQ(by_file["wrong-major.so"]["loaded"], false);
  EXPECT_NE(by_file["wrong-major.so"].dump().find("ABI major version 2"), std::string::npos);
  EXPECT_EQ(by_file["sdk-throwing.so"]["loaded"], false);
  EXPECT_NE(by_file["sdk-throwing.so"].dump().find("create failed"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::test
