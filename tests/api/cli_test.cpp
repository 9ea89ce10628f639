// agentd's verbs other than serve, run as a user would run them.
#include "tests/api/agentd_process.h"
#include "tests/api/store_connection.h"

#include <agentrt/agentrt_plugin.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

namespace agentrt::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// The ABI version this build speaks, as a regex ("1\\.9").
std::string abi_pattern() {
  return std::regex_replace(std::string(AGENTRT_ABI_VERSION_STRING), std::regex("\\."), "\\.");
}

TEST(Cli, VersionPrintsVersionAndAbi) {
  const CommandResult result = run_agentd({"version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(std::regex_match(
      result.out,
      std::regex("agentd [0-9]+\\.[0-9]+\\.[0-9]+ \\(plugin ABI " + abi_pattern() + "\\)\n")))
      << result.out;
}

TEST(Cli, HelpExitsZero) {
  for (const char* flag : {"--help", "-h", "help"}) {
    const CommandResult result = run_agentd({flag});
    EXPECT_EQ(result.exit_code, 0) << flag;
    EXPECT_TRUE(contains(result.out, "Usage: agentd")) << flag;
    EXPECT_TRUE(contains(result.out, "check-config")) << flag;
  }
}

TEST(Cli, UsageErrorsExitTwoWithUsage) {
  const std::vector<std::vector<std::string>> cases = {
      {"frobnicate"}, {"--frobnicate"}, {"--listen"}, {"version", "extra"}, {"version", "--json"}};
  for (const auto& args : cases) {
    const CommandResult result = run_agentd(args);
    EXPECT_EQ(result.exit_code, 2) << args[0];
    EXPECT_TRUE(contains(result.err, "Usage: agentd")) << result.err;
  }
  EXPECT_TRUE(contains(run_agentd({"frobnicate"}).err, "unknown verb 'frobnicate'"));
}

TEST(Cli, CheckConfigAcceptsAGoodConfig) {
  TempDir dir;
  const std::string config = dir.write("good.json", R"({
    "mode": "multi", "listen": "127.0.0.1:9555", "data_dir": "/tmp/somewhere",
    "server": {"threads": 64}, "limits": {"max_body_bytes": 2048, "max_answer_ms": 90000},
    "plugins": {"echo": {"enabled": true, "config": {"delay_ms": 0}}}
  })");
  const CommandResult result = run_agentd({"check-config", "--config", config});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("config ok\n", 0), 0u) << result.out;
  EXPECT_TRUE(contains(result.out, "mode: multi"));
  EXPECT_TRUE(contains(result.out, "listen: 127.0.0.1:9555"));
  EXPECT_TRUE(contains(result.out, "threads=64"));
  EXPECT_TRUE(contains(result.out, "max_body_bytes=2048"));
  EXPECT_TRUE(contains(result.out, "max_answer_ms=90000")) << result.out;
  EXPECT_TRUE(contains(result.out, "max_answer_bytes=8388608")) << result.out;
  EXPECT_TRUE(contains(result.out, "echo (enabled)"));
  EXPECT_TRUE(contains(result.out, "memory_backend: memory-sqlite\n")) << result.out;
  EXPECT_TRUE(contains(result.out, "admin_token_file: false\n")) << "multi mode";
}

TEST(Cli, CheckConfigWithoutAnyConfigUsesDefaults) {
  const CommandResult result = run_agentd({"check-config"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "mode: single"));
  EXPECT_TRUE(contains(result.out, "listen: 127.0.0.1:9091"));
}

TEST(Cli, CheckConfigNamesTheBadKey) {
  TempDir dir;
  struct Case {
    std::string document, expected;
  };
  const std::vector<Case> cases = {
      {R"({"bogus": 1})", "config error: bogus: "},
      {R"({"server": {"threads": "many"}})", "config error: server.threads: "},
      {R"({"limits": {"max_body_bytes": -1}})", "config error: limits.max_body_bytes: "},
      {R"({"mode": "triple"})", "config error: mode: "},
  };
  for (const Case& c : cases) {
    const CommandResult result =
        run_agentd({"check-config", "--config", dir.write("bad.json", c.document)});
    EXPECT_EQ(result.exit_code, 1) << c.document;
    EXPECT_TRUE(contains(result.err, c.expected)) << c.document << " -> " << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// What serve refuses to start without is refused here too: the auth module and the memory
// backend, their own config included, so that "config ok" is never followed by serve
// exiting 1. The real data dir is not touched.
TEST(Cli, CheckConfigRefusesWhatServeCannotStartWith) {
  TempDir dir;
  struct Case {
    std::string document, expected;
  };
  const std::vector<Case> cases = {
      {R"({"auth": "nope"})", "auth module 'nope' is not a loaded auth plugin"},
      {R"({"auth": "echo"})", "auth module 'echo' is not a loaded auth plugin"},
      {R"({"memory_backend": "nope"})", "memory backend 'nope' is not a loaded"},
      {R"({"plugins": {"auth-token": {"config": {"bogus": 1}}}})",
       "auth module 'auth-token' failed to start: create failed: "},
      {R"({"plugins": {"memory-sqlite": {"config": {"search_candidates": 0}}}})",
       "memory backend 'memory-sqlite' failed to start: "},
      {R"({"plugins": {"auth-token": {"enabled": false}}})",
       "auth module 'auth-token' is disabled in the config"},
      {R"({"plugin_dirs": ["/nonexistent/agentrt-plugins"]})",
       "plugin_dirs[0]: '/nonexistent/agentrt-plugins' is not a directory"},
      // serve leaves these out, or serves another provider's model: check-config must not
      // be silent on either.
      {R"({"plugins": {"ech0": {"enabled": false}}})",
       "plugins.ech0: disabled, but no plugin directory holds a plugin of that name"},
      {R"({"plugins": {"openai": {"config": {"base_url": "http://127.0.0.1:9",)"
       R"( "models": [{"id": "echo", "context_window": 100}]}}}})",
       "plugins.openai: model 'echo' is served by 'echo' already"},
      {R"({"plugins": {"openai": {"config": {"base_url": "http://127.0.0.1:9",)"
       R"( "models": [{"id": "m", "context_window": -5}]}}}})",
       "plugins.openai: its list_models answer breaks the SDK's shape: field "
       "'models[0].context_window' must be from 1 to 100000000"},
  };
  const std::string data = dir.path() + "/data";
  for (const Case& c : cases) {
    const CommandResult result = run_agentd(
        {"check-config", "--config", dir.write("bad.json", c.document), "--data-dir", data});
    EXPECT_EQ(result.exit_code, 1) << c.document << " -> " << result.out;
    EXPECT_TRUE(contains(result.err, c.expected)) << c.document << " -> " << result.err;
  }
  EXPECT_FALSE(std::filesystem::exists(data)) << "check-config made the data dir";
  const CommandResult good =
      run_agentd({"check-config", "--config", dir.write("good.json", "{}"), "--data-dir", data});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_FALSE(std::filesystem::exists(data));
}

// check-config must not say "config ok" for what serve then refuses, or starts without: a
// data dir that is a file, a store newer than the build, an address not on this host, a
// plugin name no plugin dir has, a plugin that refuses its config.
TEST(Cli, CheckConfigRefusesWhatServeWouldRefuseOrGoWithout) {
  TempDir dir;
  const std::string file = dir.write("a-file", "x");
  const std::string data = dir.path() + "/data";
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--data-dir", file}, "data_dir '" + file + "' is not a directory"},
      {{"--data-dir", file + "/sub"}, "data_dir '" + file + "/sub' cannot be made: '" + file},
      {{"--data-dir", data, "--listen", "10.255.255.1:9849"},
       "listen: cannot listen on 10.255.255.1"},
      {{"--data-dir", data, "--config",
        dir.write("typo.json", R"({"plugins": {"open-ai": {"enabled": true}}})")},
       "plugins.open-ai: enabled in the config but not found"},
      {{"--data-dir", data, "--config",
        dir.write("bad.json", R"({"plugins": {"openai": {"config": {"base_url": "ftp://x"}}}})")},
       "plugins.openai: create failed: openai config: 'base_url' must start with"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"check-config"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CommandResult result = run_agentd(args);
    EXPECT_EQ(result.exit_code, 1) << c.expected << " -> " << result.out;
    EXPECT_TRUE(contains(result.err, c.expected)) << c.expected << " -> " << result.err;
  }
  {
    AgentdProcess agentd(with_args({"--data-dir", data}));
    ASSERT_EQ(agentd.stop(), 0);
  }
  ASSERT_EQ(run_agentd({"check-config", "--data-dir", data}).exit_code, 0);
  StoreConnection(data + "/state.db")
      .exec("INSERT INTO schema_migrations VALUES(999, 'future', 'later')");
  const CommandResult newer = run_agentd({"check-config", "--data-dir", data});
  EXPECT_EQ(newer.exit_code, 1);
  EXPECT_TRUE(contains(newer.err, "database schema version 999 is newer than this agentd"))
      << newer.err;
}

TEST(Cli, CheckConfigReportsAMissingFile) {
  TempDir dir;
  const std::string missing = dir.path() + "/missing.json";
  const CommandResult result = run_agentd({"check-config", "--config", missing});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "config error: ")) << result.err;
  EXPECT_TRUE(contains(result.err, missing)) << result.err;
}

TEST(Cli, CheckConfigAppliesPrecedence) {
  TempDir dir;
  const std::string config =
      dir.write("c.json", R"({"mode": "single", "listen": "127.0.0.1:1111"})");
  const CommandResult env_wins =
      run_agentd({"check-config", "--config", config}, {{"AGENTRT_MODE", "multi"}});
  EXPECT_TRUE(contains(env_wins.out, "mode: multi")) << env_wins.out;
  const CommandResult flag_wins = run_agentd(
      {"check-config", "--config", config, "--mode", "single", "--listen", "127.0.0.1:3333"},
      {{"AGENTRT_MODE", "multi"}, {"AGENTRT_LISTEN", "127.0.0.1:2222"}});
  EXPECT_TRUE(contains(flag_wins.out, "mode: single")) << flag_wins.out;
  EXPECT_TRUE(contains(flag_wins.out, "listen: 127.0.0.1:3333")) << flag_wins.out;
  const CommandResult bad_env = run_agentd({"check-config"}, {{"AGENTRT_LISTEN", "nonsense"}});
  EXPECT_EQ(bad_env.exit_code, 1);
  EXPECT_TRUE(contains(bad_env.err, "AGENTRT_LISTEN")) << bad_env.err;
}

TEST(Cli, PluginsListsBundledEchoAsATable) {
  const CommandResult result = run_agentd({"plugins"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(
      std::regex_search(result.out, std::regex("\\becho +provider +[0-9.]+ +" + abi_pattern() +
                                               " +\\S+agentrt-echo\\.so +loaded\\b")))
      << result.out;
}

// Run from a binary copied without its lib/ (or with a typo in "auth"), the listing must
// not say "no plugins found" and exit 0: serve could not start.
TEST(Cli, PluginsExitsOneWhenServeCouldNotStart) {
  TempDir dir;
  const CommandResult result =
      run_agentd({"plugins", "--config", dir.write("c.json", R"({"auth": "auth-tokn"})")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "serve would not start: the auth module 'auth-tokn'"))
      << result.err;
  EXPECT_TRUE(contains(result.out, "auth-token")) << "the listing still comes";
}

TEST(Cli, PluginsJsonListsLoadedAndRefusedPlugins) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/extra");
  dir.write("extra/broken.so", "not a shared library");
  const CommandResult result =
      run_agentd({"plugins", "--json", "--plugin-dir", dir.path() + "/extra"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  bool saw_echo = false, saw_broken = false;
  for (const nlohmann::json& line : json_lines(result.out)) {
    if (line["name"] == "echo") {
      saw_echo = true;
      EXPECT_EQ(line["kind"], "provider");
      EXPECT_EQ(line["abi"], AGENTRT_ABI_VERSION_STRING);
      EXPECT_EQ(line["loaded"], true);
      EXPECT_FALSE(line["version"].get<std::string>().empty());
      EXPECT_FALSE(line.contains("error"));
    }
    if (line["path"] == dir.path() + "/extra/broken.so") {
      saw_broken = true;
      EXPECT_EQ(line["loaded"], false);
      EXPECT_FALSE(line["error"].get<std::string>().empty());
    }
  }
  EXPECT_TRUE(saw_echo) << result.out;
  EXPECT_TRUE(saw_broken) << result.out;
}

}  // namespace
}  // namespace agentrt::test
