// agentd pointed at a directory of broken plugins: each is refused with its file and
// reason in the log, the good ones load, and the engine serves on. A file no config
// enables is never opened, and nothing is opened from a place others may write.
#include "tests/api/agentd_process.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
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
                "list-fails": {}, "list-bad": {}, "fixture-future-minor": {},
                "bad-magic": {}, "wrong-major": {}, "short-descriptor": {}, "short-table": {},
                "missing-function": {}, "unknown-kind": {}, "not-a-plugin": {}, "garbage": {}}
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

// `agentd plugins --json`'s lines by file name.
std::map<std::string, json> plugin_lines_by_file(const std::string& out) {
  std::map<std::string, json> by_file;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    json entry = json::parse(line, nullptr, false);
    if (!entry.is_object()) continue;
    std::string path = entry.value("path", "");
    by_file[path.substr(path.rfind('/') + 1)] = entry;
  }
  return by_file;
}

// A plugin dir of the test's holding the marker library (tests/plugin_host/marker_plugin.c),
// whose constructor writes `marker` when anything opens it.
struct DroppedLibrary {
  DroppedLibrary() {
    std::filesystem::create_directory(dir());
    std::filesystem::permissions(dir(), std::filesystem::perms(0755));
    std::filesystem::copy_file(AGENTRT_TEST_MARKER_PLUGIN, dir() + "/marker-plugin.so");
  }
  std::string dir() const { return temp.path() + "/plugins"; }
  std::string file() const { return dir() + "/marker-plugin.so"; }
  std::string marker() const { return temp.path() + "/marker"; }
  Environment env() const { return {{"AGENTRT_TEST_PLUGIN_MARKER", marker()}}; }
  bool marked() const { return std::filesystem::exists(marker()); }
  TempDir temp;
};

TEST(PluginRefusal, ALibraryDroppedIntoAPluginDirIsNeverOpened) {
  DroppedLibrary dropped;
  AgentdOptions options = with_args({"--plugin-dir", dropped.dir()});
  options.env = dropped.env();
  {
    AgentdProcess agentd(options);
    EXPECT_EQ(agentd.request("GET", "/health").status, 200);
    EXPECT_TRUE(agentd.wait_for_log([](const json& line) {
      return line.value("msg", "") == "plugin not opened" &&
             line.value("path", "").find("marker-plugin.so") != std::string::npos;
    }));
    EXPECT_EQ(agentd.stop(), 0);
  }
  EXPECT_FALSE(dropped.marked()) << "agentd opened a library no config enables";
  auto listed = run_agentd({"plugins", "--json", "--plugin-dir", dropped.dir()}, dropped.env());
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  const json line = plugin_lines_by_file(listed.out)["marker-plugin.so"];
  EXPECT_EQ(line["opened"], false) << listed.out;
  EXPECT_EQ(line["loaded"], false);
  EXPECT_NE(line.value("error", "").find("no enabled plugin is named 'marker-plugin'"),
            std::string::npos)
      << line;
  EXPECT_FALSE(dropped.marked()) << "agentd plugins opened a library no config enables";

  // The control: named in the config, the same library is opened and leaves its mark.
  TempDir config_dir;
  auto enabled = run_agentd({"plugins", "--json", "--plugin-dir", dropped.dir(), "--config",
                             config_dir.write("c.json", R"({"plugins": {"marker-plugin": {}}})")},
                            dropped.env());
  EXPECT_TRUE(dropped.marked()) << enabled.out << enabled.err;
  EXPECT_EQ(plugin_lines_by_file(enabled.out)["marker-plugin.so"]["opened"], true);
}

TEST(PluginRefusal, PluginsVerbNamesADirectoryOrFileOthersMayWrite) {
  DroppedLibrary dropped;
  TempDir config_dir;
  const std::string config = config_dir.write("c.json", R"({"plugins": {"marker-plugin": {}}})");
  auto plugins = [&] {
    return run_agentd({"plugins", "--json", "--plugin-dir", dropped.dir(), "--config", config},
                      dropped.env());
  };
  std::filesystem::permissions(dropped.dir(), std::filesystem::perms(0777));
  auto listed = plugins();
  json line = plugin_lines_by_file(listed.out)["plugins"];
  EXPECT_EQ(line["path"], dropped.dir()) << listed.out;
  EXPECT_EQ(line["opened"], false);
  EXPECT_NE(line.value("error", "").find("is writable by others (mode 0777)"), std::string::npos)
      << line;
  auto checked = run_agentd({"check-config", "--plugin-dir", dropped.dir(), "--config", config,
                             "--data-dir", config_dir.path() + "/data"});
  EXPECT_EQ(checked.exit_code, 1);
  EXPECT_NE(checked.err.find("writable by others"), std::string::npos) << checked.err;

  std::filesystem::permissions(dropped.dir(), std::filesystem::perms(0755));
  std::filesystem::permissions(dropped.file(), std::filesystem::perms(0775));
  listed = plugins();
  line = plugin_lines_by_file(listed.out)["marker-plugin.so"];
  EXPECT_EQ(line["opened"], false) << listed.out;
  EXPECT_NE(line.value("error", "").find("is writable by its group"), std::string::npos) << line;
  // The table says the same.
  auto table =
      run_agentd({"plugins", "--plugin-dir", dropped.dir(), "--config", config}, dropped.env());
  EXPECT_NE(table.out.find("not opened: plugin file '" + dropped.file() + "' is writable by"),
            std::string::npos)
      << table.out;
  EXPECT_FALSE(dropped.marked());
}

TEST(PluginRefusal, PluginsVerbNamesAFileOfAnotherOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the library to another user";
  DroppedLibrary dropped;
  TempDir config_dir;
  ASSERT_EQ(::chown(dropped.file().c_str(), 4242, 4242), 0);
  auto listed = run_agentd({"plugins", "--json", "--plugin-dir", dropped.dir(), "--config",
                            config_dir.write("c.json", R"({"plugins": {"marker-plugin": {}}})")},
                           dropped.env());
  const json line = plugin_lines_by_file(listed.out)["marker-plugin.so"];
  EXPECT_EQ(line["opened"], false) << listed.out;
  EXPECT_NE(line.value("error", "").find("is owned by uid 4242, neither root nor agentd's user"),
            std::string::npos)
      << line;
  EXPECT_FALSE(dropped.marked());
}

}  // namespace
}  // namespace agentrt::test
