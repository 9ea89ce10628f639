#include "core/config/config.h"
#include "core/domain/json_text.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::core {
namespace {

using nlohmann::json;

// Runs `action`, expects a ConfigError with `key`, and returns its message.
template <typename Action>
std::string config_error(Action action, const std::string& key) {
  try {
    action();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for key '" << key << "'";
  return {};
}

std::string apply_error(const std::string& document, const std::string& key) {
  return config_error([&] { apply_config_json(Config{}, json::parse(document)); }, key);
}

Config load_file(const test_util::TempDir& dir, const std::string& content,
                 const Environment& env = {}) {
  ConfigOverrides flags;
  flags.config_file = dir.write("agentrt.json", content);
  return load_config(flags, env);
}

TEST(ConfigTest, DefaultsWithoutFileEnvOrFlags) {
  Config config = load_config({}, {});
  EXPECT_EQ(config.mode, CellMode::single);
  EXPECT_EQ(config.listen, "127.0.0.1:9091");
  EXPECT_EQ(config.data_dir, "./agentrt-data");
  EXPECT_EQ(config.log_level, "info");
  EXPECT_TRUE(config.plugin_dirs.empty());
  ASSERT_EQ(config.plugins.size(), 1u);
  ASSERT_EQ(config.plugins.count("echo"), 1u);
  EXPECT_TRUE(config.plugins.at("echo").enabled);
  EXPECT_EQ(config.plugins.at("echo").config, json::object());
  EXPECT_EQ(config.server.threads, 4096u);
  EXPECT_EQ(config.server.max_queued, 4096u);
  EXPECT_EQ(config.server.thread_stack_kb, 256u);
  EXPECT_EQ(config.server.shutdown_grace_s, 10u);
  EXPECT_TRUE(config.server.batch_scheduling);
  EXPECT_EQ(config.limits.max_body_bytes, 1024u * 1024u);
}

TEST(ConfigTest, EveryKeyIsParsed) {
  test_util::TempDir dir;
  Config config = load_file(dir, R"({
    "mode": "multi",
    "listen": "0.0.0.0:8080",
    "data_dir": "/var/lib/agentrt",
    "log_level": "debug",
    "plugin_dirs": ["/opt/a", "/opt/b"],
    "plugins": {"openai": {"enabled": true, "config": {"base_url": "http://x"}},
                "echo": {"config": {"model": "echo"}}},
    "server": {"threads": 64, "max_queued": 128, "thread_stack_kb": 512,
               "keep_alive_timeout_s": 7, "receive_timeout_s": 8, "send_timeout_s": 9,
               "shutdown_grace_s": 0, "batch_scheduling": false},
    "limits": {"max_body_bytes": 2048}
  })");
  EXPECT_EQ(config.mode, CellMode::multi);
  EXPECT_EQ(config.listen, "0.0.0.0:8080");
  EXPECT_EQ(config.data_dir, "/var/lib/agentrt");
  EXPECT_EQ(config.log_level, "debug");
  EXPECT_EQ(config.plugin_dirs, (std::vector<std::string>{"/opt/a", "/opt/b"}));
  ASSERT_EQ(config.plugins.size(), 2u);
  EXPECT_TRUE(config.plugins.at("openai").enabled);
  EXPECT_EQ(config.plugins.at("openai").config, json({{"base_url", "http://x"}}));
  EXPECT_TRUE(config.plugins.at("echo").enabled);
  EXPECT_EQ(config.plugins.at("echo").config, json({{"model", "echo"}}));
  EXPECT_EQ(config.server.threads, 64u);
  EXPECT_EQ(config.server.max_queued, 128u);
  EXPECT_EQ(config.server.thread_stack_kb, 512u);
  EXPECT_EQ(config.server.keep_alive_timeout_s, 7u);
  EXPECT_EQ(config.server.receive_timeout_s, 8u);
  EXPECT_EQ(config.server.send_timeout_s, 9u);
  EXPECT_EQ(config.server.shutdown_grace_s, 0u);
  EXPECT_FALSE(config.server.batch_scheduling);
  EXPECT_EQ(config.limits.max_body_bytes, 2048u);
}

TEST(ConfigTest, NamingOtherPluginsKeepsEchoEnabled) {
  test_util::TempDir dir;
  Config config = load_file(dir, R"({"plugins": {"ollama": {}}})");
  EXPECT_TRUE(config.plugins.at("echo").enabled);
  EXPECT_TRUE(config.plugins.at("ollama").enabled);
}

TEST(ConfigTest, EchoCanBeSwitchedOff) {
  test_util::TempDir dir;
  Config config = load_file(dir, R"({"plugins": {"echo": {"enabled": false}}})");
  EXPECT_FALSE(config.plugins.at("echo").enabled);
}

TEST(ConfigTest, UnknownKeysAreNamedByFullPath) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"mod": "single"})", "mod"},
      {R"({"server": {"thread": 4}})", "server.thread"},
      {R"({"limits": {"max_body": 4096}})", "limits.max_body"},
      {R"({"plugins": {"echo": {"enabld": true}}})", "plugins.echo.enabld"},
  };
  for (const auto& [document, key] : cases) {
    std::string message = apply_error(document, key);
    EXPECT_NE(message.find("unknown config key '" + key + "'"), std::string::npos) << message;
  }
}

TEST(ConfigTest, UnknownKeyInFileNamesKeyAndFile) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  flags.config_file = dir.write("bad.json", R"({"server": {"thread": 4}})");
  std::string message = config_error([&] { load_config(flags, {}); }, "server.thread");
  EXPECT_NE(message.find("unknown config key 'server.thread'"), std::string::npos) << message;
  EXPECT_NE(message.find(*flags.config_file), std::string::npos) << message;
}

// nlohmann keeps the last of two equal keys, silently; an operator who wrote one twice
// meant one of them, and is told which key.
TEST(ConfigTest, AKeyWrittenTwiceInAnObjectIsAnError) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  for (const auto& [document, key] : std::vector<std::pair<std::string, std::string>>{
           {R"({"listen": "127.0.0.1:1", "listen": "127.0.0.1:2"})", "listen"},
           {R"({"server": {"threads": 8, "threads": 9}})", "server.threads"},
           {R"({"plugins": {"openai": {"config": {"a": 1}}, "openai": {}}})", "plugins.openai"}}) {
    flags.config_file = dir.write("twice.json", document);
    std::string message = config_error([&] { load_config(flags, {}); }, key);
    EXPECT_NE(message.find("appears twice"), std::string::npos) << message;
  }
  // The same key in two objects is no repeat.
  EXPECT_EQ(load_file(dir, R"({"plugins": {"a": {"enabled": true}, "b": {"enabled": true}}})")
                .plugins.size(),
            3u);
}

TEST(ConfigTest, WrongTypesNameKeyAndExpectation) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"mode": 1})", "mode"},
      {R"({"mode": "triple"})", "mode"},
      {R"({"listen": 9091})", "listen"},
      {R"({"listen": "localhost"})", "listen"},
      {R"({"data_dir": ""})", "data_dir"},
      {R"({"data_dir": null})", "data_dir"},
      {R"({"log_level": "verbose"})", "log_level"},
      {R"({"plugin_dirs": "/opt"})", "plugin_dirs"},
      {R"({"plugin_dirs": ["/opt", 3]})", "plugin_dirs"},
      {R"({"plugin_dirs": [""]})", "plugin_dirs"},
      {R"({"plugins": []})", "plugins"},
      {R"({"plugins": {"echo": true}})", "plugins.echo"},
      {R"({"plugins": {"echo": {"enabled": "yes"}}})", "plugins.echo.enabled"},
      {R"({"plugins": {"echo": {"config": [1]}}})", "plugins.echo.config"},
      {R"({"server": 5})", "server"},
      {R"({"server": {"threads": "10"}})", "server.threads"},
      {R"({"server": {"threads": 1.5}})", "server.threads"},
      {R"({"server": {"threads": true}})", "server.threads"},
      {R"({"server": {"batch_scheduling": "yes"}})", "server.batch_scheduling"},
      {R"({"server": {"batch_scheduling": 1}})", "server.batch_scheduling"},
      {R"({"limits": []})", "limits"},
  };
  for (const auto& [document, key] : cases) {
    std::string message = apply_error(document, key);
    EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("must be"), std::string::npos) << message;
  }
}

TEST(ConfigTest, NonObjectDocumentIsRejected) {
  std::string message = apply_error("[1, 2]", "");
  EXPECT_NE(message.find("object"), std::string::npos) << message;
}

struct RangeCase {
  const char* section;
  const char* key;
  uint64_t min;
  uint64_t max;
};

TEST(ConfigTest, NumericRangesAreEnforcedAtBothEnds) {
  const RangeCase cases[] = {
      {"server", "threads", 1, 65535},
      {"server", "max_queued", 1, 1000000},
      {"server", "thread_stack_kb", 64, 65536},
      {"server", "keep_alive_timeout_s", 1, 3600},
      {"server", "receive_timeout_s", 1, 3600},
      {"server", "send_timeout_s", 1, 3600},
      {"server", "shutdown_grace_s", 0, 3600},
      {"server", "thread_idle_s", 1, 3600},
      {"limits", "max_body_bytes", 1024, 1073741824},
      {"limits", "history_cache_mb", 0, 1048576},
      {"limits", "max_answer_ms", 1000, 86400000},
  };
  for (const RangeCase& c : cases) {
    const std::string key = std::string(c.section) + "." + c.key;
    auto document = [&](json value) { return json{{c.section, {{c.key, value}}}}; };
    EXPECT_NO_THROW(apply_config_json(Config{}, document(c.min))) << key;
    EXPECT_NO_THROW(apply_config_json(Config{}, document(c.max))) << key;
    config_error([&] { apply_config_json(Config{}, document(c.max + 1)); }, key);
    config_error([&] { apply_config_json(Config{}, document(-1)); }, key);
    if (c.min > 0) config_error([&] { apply_config_json(Config{}, document(c.min - 1)); }, key);
  }
  Config config = apply_config_json(Config{}, json{{"server", {{"threads", 65535}}}});
  EXPECT_EQ(config.server.threads, 65535u);
  EXPECT_EQ(Config{}.limits.history_cache_mb, 32u);
  config = apply_config_json(Config{}, json{{"limits", {{"history_cache_mb", 0}}}});
  EXPECT_EQ(config.limits.history_cache_mb, 0u);
}

TEST(ConfigTest, ListenAddressParsing) {
  EXPECT_EQ(parse_listen_address("127.0.0.1:9091", "listen"),
            (std::pair<std::string, uint16_t>{"127.0.0.1", 9091}));
  EXPECT_EQ(parse_listen_address("localhost:0", "listen").second, 0);
  EXPECT_EQ(parse_listen_address("0.0.0.0:65535", "listen").second, 65535);
  EXPECT_EQ(parse_listen_address("[::1]:8080", "listen").first, "::1");
  for (const char* bad : {"127.0.0.1", "127.0.0.1:65536", ":80", "host:", "host:abc", "::1:80",
                          "host:-1", "a b:80", "host:123456", ""}) {
    std::string message = config_error([&] { parse_listen_address(bad, "--listen"); }, "--listen");
    EXPECT_NE(message.find("--listen"), std::string::npos) << message;
    EXPECT_NE(message.find("HOST:PORT"), std::string::npos) << message;
  }
}

TEST(ConfigTest, PrecedenceFlagOverEnvironmentOverFileOverDefault) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  flags.config_file = dir.write("agentrt.json", R"({
    "mode": "multi", "listen": "127.0.0.1:1001", "data_dir": "/file",
    "log_level": "debug", "plugin_dirs": ["/file-plugins"]})");
  Environment env = {{"AGENTRT_LISTEN", "127.0.0.1:2002"},
                     {"AGENTRT_DATA_DIR", "/env"},
                     {"AGENTRT_PLUGIN_DIRS", "/env-a::/env-b:"}};
  flags.listen = "127.0.0.1:3003";

  Config config = load_config(flags, env);
  EXPECT_EQ(config.listen, "127.0.0.1:3003");  // flag beats env and file
  EXPECT_EQ(config.data_dir, "/env");          // env beats file
  EXPECT_EQ(config.mode, CellMode::multi);     // file beats default
  EXPECT_EQ(config.log_level, "debug");
  // Environment dirs replace the file's list; empty elements are skipped.
  EXPECT_EQ(config.plugin_dirs, (std::vector<std::string>{"/env-a", "/env-b"}));
  EXPECT_EQ(config.server.threads, 4096u);  // default

  flags.mode = "single";
  flags.data_dir = "/flag";
  flags.log_level = "error";
  flags.plugin_dirs = {"/flag-plugins"};
  env["AGENTRT_MODE"] = "multi";
  env["AGENTRT_LOG_LEVEL"] = "warn";
  config = load_config(flags, env);
  EXPECT_EQ(config.mode, CellMode::single);
  EXPECT_EQ(config.data_dir, "/flag");
  EXPECT_EQ(config.log_level, "error");
  EXPECT_EQ(config.plugin_dirs, (std::vector<std::string>{"/flag-plugins"}));

  flags = {};
  flags.config_file = dir.file("agentrt.json");
  config = load_config(flags, {{"AGENTRT_MODE", "single"}, {"AGENTRT_LOG_LEVEL", "warn"}});
  EXPECT_EQ(config.mode, CellMode::single);  // env beats file
  EXPECT_EQ(config.log_level, "warn");
}

TEST(ConfigTest, EmptyPluginDirsVariableClearsTheList) {
  test_util::TempDir dir;
  Config config = load_file(dir, R"({"plugin_dirs": ["/x"]})", {{"AGENTRT_PLUGIN_DIRS", ""}});
  EXPECT_TRUE(config.plugin_dirs.empty());
}

TEST(ConfigTest, ConfigFileFromFlagBeatsEnvironment) {
  test_util::TempDir dir;
  std::string from_env = dir.write("env.json", R"({"listen": "127.0.0.1:1111"})");
  std::string from_flag = dir.write("flag.json", R"({"listen": "127.0.0.1:2222"})");
  Environment env = {{"AGENTRT_CONFIG", from_env}};
  EXPECT_EQ(load_config({}, env).listen, "127.0.0.1:1111");
  ConfigOverrides flags;
  flags.config_file = from_flag;
  EXPECT_EQ(load_config(flags, env).listen, "127.0.0.1:2222");
}

TEST(ConfigTest, BadEnvironmentValuesNameTheVariable) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"AGENTRT_MODE", "triple"},    {"AGENTRT_LISTEN", "nowhere"}, {"AGENTRT_LISTEN", "h:70000"},
      {"AGENTRT_LOG_LEVEL", "loud"}, {"AGENTRT_DATA_DIR", ""},      {"AGENTRT_CONFIG", ""},
  };
  for (const auto& [name, value] : cases) {
    std::string message = config_error([&] { load_config({}, {{name, value}}); }, name);
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

// A refused value is quoted up to kShownBytes, cut before the character that would pass
// them: cut inside a letter, as it was, the message was not UTF-8, and a JSON log line
// or an API error carrying it could not be written.
TEST(ConfigTest, AQuotedValueIsCutBetweenCharactersInAnyScript) {
  std::string value = "a";  // so that the cut at 57 bytes falls inside a letter
  for (int i = 0; i < 40; ++i) value += "\xD1\x8F";  // Cyrillic ya
  const std::string quoted_start = "got \"a\xD1\x8F\xD1\x8F";
  const std::vector<std::string> messages = {
      apply_error(json{{"mode", value}}.dump(), "mode"),
      config_error(
          [&] {
            load_config({}, {{"AGENTRT_MODE", value}});
          },
          "AGENTRT_MODE"),
  };
  for (const std::string& message : messages) {
    EXPECT_NO_THROW(json(message).dump()) << "the message is not UTF-8";
    const size_t got = message.find(quoted_start);
    ASSERT_NE(got, std::string::npos) << message;
    const std::string quoted = message.substr(got + 4);
    EXPECT_EQ(quoted.size(), kShownBytes - 1) << quoted;  // 27 letters, not 27 and a half
    EXPECT_EQ(quoted.substr(quoted.size() - 3), "...") << quoted;
  }
  EXPECT_EQ(json_excerpt(json("short"), kShownBytes), "\"short\"");
  EXPECT_EQ(json_excerpt(json(std::string(100, 'x')), 10), "\"xxxxxx...");
}

TEST(ConfigTest, BadFlagsNameTheFlag) {
  ConfigOverrides flags;
  flags.mode = "both";
  config_error([&] { load_config(flags, {}); }, "--mode");
  flags = {};
  flags.listen = "127.0.0.1:99999";
  config_error([&] { load_config(flags, {}); }, "--listen");
  flags = {};
  flags.log_level = "chatty";
  config_error([&] { load_config(flags, {}); }, "--log-level");
  flags = {};
  flags.data_dir = "";
  config_error([&] { load_config(flags, {}); }, "--data-dir");
  flags = {};
  flags.plugin_dirs = {"/ok", ""};
  config_error([&] { load_config(flags, {}); }, "--plugin-dir");
}

TEST(ConfigTest, MissingOrUnreadableFileNamesThePath) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  flags.config_file = dir.file("does-not-exist.json");
  std::string message = config_error([&] { load_config(flags, {}); }, "");
  EXPECT_NE(message.find(*flags.config_file), std::string::npos) << message;

  flags.config_file = dir.path();  // a directory opens but cannot be read
  message = config_error([&] { load_config(flags, {}); }, "");
  EXPECT_NE(message.find(dir.path()), std::string::npos) << message;

  message = config_error([&] { load_config({}, {{"AGENTRT_CONFIG", dir.file("nope.json")}}); }, "");
  EXPECT_NE(message.find(dir.file("nope.json")), std::string::npos) << message;
}

TEST(ConfigTest, MalformedJsonNamesPathAndPosition) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  flags.config_file = dir.write("broken.json", "{\n  \"mode\": \"single\",\n}\n");
  std::string message = config_error([&] { load_config(flags, {}); }, "");
  EXPECT_NE(message.find(*flags.config_file), std::string::npos) << message;
  EXPECT_NE(message.find("line 3"), std::string::npos) << message;
  EXPECT_NE(message.find("column"), std::string::npos) << message;
}

// nlohmann's message quotes what it last read: an API key pasted with its newline, or
// with a stray backslash, would be printed whole on stderr.
TEST(ConfigTest, MalformedJsonNeverQuotesTheFilesText) {
  test_util::TempDir dir;
  for (const std::string& broken :
       {std::string("{\"providers\": {\"o\": {\"value\": \"sk-test-SECRET123\n\"}}}"),
        std::string("{\"value\": \"sk-test-SECRET123\\q\"}"),
        std::string("{\"value\": sk-test-SECRET123}"), std::string("{\"n\": 1e999123}")}) {
    ConfigOverrides flags;
    flags.config_file = dir.write("broken.json", broken);
    const std::string message = config_error([&] { load_config(flags, {}); }, "");
    EXPECT_EQ(message.find("SECRET123"), std::string::npos) << message;
    EXPECT_EQ(message.find("999123"), std::string::npos) << message;
    EXPECT_TRUE(message.find("at line ") != std::string::npos ||
                message.find("too large to represent") != std::string::npos)
        << message;
  }
}

TEST(ConfigTest, NonObjectFileNamesPath) {
  test_util::TempDir dir;
  ConfigOverrides flags;
  flags.config_file = dir.write("array.json", "[]");
  std::string message = config_error([&] { load_config(flags, {}); }, "");
  EXPECT_NE(message.find(*flags.config_file), std::string::npos) << message;
}

TEST(ConfigTest, ProcessEnvironmentReadsAgentrtVariables) {
  ::setenv("AGENTRT_CORE_TEST_ONLY", "value=with=equals", 1);
  Environment env = process_environment();
  ::unsetenv("AGENTRT_CORE_TEST_ONLY");
  ASSERT_EQ(env.count("AGENTRT_CORE_TEST_ONLY"), 1u);
  EXPECT_EQ(env.at("AGENTRT_CORE_TEST_ONLY"), "value=with=equals");
  EXPECT_EQ(env.count("PATH"), 0u);
}

// Tool servers (docs/tools.md): the engine's own keys are checked here, the rest are the
// plugin's; the entry goes to the plugin whole.
TEST(ConfigTest, ToolServersAreReadInOrderWithTheirDefaults) {
  Config c = apply_config_json(Config{}, json::parse(R"({"tool_servers":[
      {"name":"files","command":["node","x.js"]},
      {"name":"web","type":"mcp","url":"http://127.0.0.1:1/mcp","require_approval":"always",
       "timeout_ms":500}]})"));
  ASSERT_EQ(c.tool_servers.size(), 2u);
  EXPECT_EQ(c.tool_servers[0].name, "files");
  EXPECT_EQ(c.tool_servers[0].type, "mcp");
  EXPECT_EQ(c.tool_servers[0].require_approval, "never");
  EXPECT_EQ(c.tool_servers[0].timeout_ms, 60000u);
  EXPECT_EQ(c.tool_servers[0].entry["command"][1], "x.js");
  EXPECT_EQ(c.tool_servers[1].require_approval, "always");
  EXPECT_EQ(c.tool_servers[1].timeout_ms, 500u);
  EXPECT_EQ(c.limits.max_tool_output_bytes, 256u * 1024);
}

TEST(ConfigTest, BadToolServersNameTheKey) {
  EXPECT_NE(apply_error(R"({"tool_servers":{}})", "tool_servers").find("an array"),
            std::string::npos);
  apply_error(R"({"tool_servers":[{"url":"x"}]})", "tool_servers[0].name");
  apply_error(R"({"tool_servers":[{"name":"a b"}]})", "tool_servers[0].name");
  apply_error(R"({"tool_servers":[{"name":"a","require_approval":"sometimes"}]})",
              "tool_servers[0].require_approval");
  apply_error(R"({"tool_servers":[{"name":"a","timeout_ms":0}]})", "tool_servers[0].timeout_ms");
  apply_error(R"({"tool_servers":[{"name":"a","type":""}]})", "tool_servers[0].type");
  EXPECT_NE(apply_error(R"({"tool_servers":[{"name":"a"},{"name":"a"}]})", "tool_servers[1].name")
                .find("repeats the tool server 'a'"),
            std::string::npos);
  apply_error(R"({"limits":{"max_tool_output_bytes":10}})", "limits.max_tool_output_bytes");
}

// metrics (docs/operator-guide.md, "Metrics"): loopback by default.
TEST(ConfigTest, MetricsAccessAndCellCap) {
  Config defaults = load_config({}, {});
  EXPECT_EQ(defaults.metrics.access, MetricsAccess::loopback);
  EXPECT_EQ(defaults.metrics.max_cells, 100u);
  Config c = apply_config_json(Config{}, json::parse(R"({"metrics":{"access":"admin",
      "max_cells":3}})"));
  EXPECT_EQ(c.metrics.access, MetricsAccess::admin);
  EXPECT_EQ(c.metrics.max_cells, 3u);
  EXPECT_EQ(
      apply_config_json(Config{}, json::parse(R"({"metrics":{"access":"off"}})")).metrics.access,
      MetricsAccess::off);
  EXPECT_NE(apply_error(R"({"metrics":{"access":"public"}})", "metrics.access").find("loopback"),
            std::string::npos);
  apply_error(R"({"metrics":{"access":true}})", "metrics.access");
  apply_error(R"({"metrics":{"max_cells":0}})", "metrics.max_cells");
  apply_error(R"({"metrics":{"acess":"off"}})", "metrics.acess");
  apply_error(R"({"metrics":"off"})", "metrics");
  EXPECT_EQ(load_config({}, {{"AGENTRT_METRICS", "off"}}).metrics.access, MetricsAccess::off);
  config_error([] { load_config({}, {{"AGENTRT_METRICS", "on"}}); }, "AGENTRT_METRICS");
}

// secrets (docs/operator-guide.md, "Secrets"): the fence of the API's key references.
// Its directory is absolute once loaded, beside the config file unless set, and in the
// data dir when there is no file, there being no config dir then.
TEST(ConfigTest, SecretsDirDefaultsBesideTheConfigFileOrInTheDataDir) {
  namespace fs = std::filesystem;
  Config bare = load_config({}, {});
  EXPECT_EQ(bare.secrets.dir, (fs::current_path() / "agentrt-data" / "secrets").string());
  EXPECT_EQ(bare.secrets.env_prefix, "AGENTRT_SECRET_");
  EXPECT_EQ(load_config({}, {{"AGENTRT_DATA_DIR", "/srv/agentrt"}}).secrets.dir,
            "/srv/agentrt/secrets");
  test_util::TempDir dir;
  EXPECT_EQ(load_file(dir, "{}").secrets.dir, dir.path() + "/secrets");
  Config set = load_file(dir, R"({"secrets": {"dir": "/etc/keys/", "env_prefix": "KEYS_"}})");
  EXPECT_EQ(set.secrets.dir, "/etc/keys");
  EXPECT_EQ(set.secrets.env_prefix, "KEYS_");
  EXPECT_EQ(load_file(dir, R"({"secrets": {"dir": "keys"}})").secrets.dir,
            (fs::current_path() / "keys").string());
  // Without load_config (a Config made in code): the data dir's.
  Config made;
  made.data_dir = "/data";
  EXPECT_EQ(effective_secrets_dir(made), "/data/secrets");
}

TEST(ConfigTest, BadSecretsKeysAreNamed) {
  apply_error(R"({"secrets": {"dir": ""}})", "secrets.dir");
  apply_error(R"({"secrets": {"dir": 3}})", "secrets.dir");
  // An empty prefix would let the API name any variable of agentd's environment.
  EXPECT_NE(
      apply_error(R"({"secrets": {"env_prefix": ""}})", "secrets.env_prefix").find("non-empty"),
      std::string::npos);
  apply_error(R"({"secrets": {"prefix": "X_"}})", "secrets.prefix");
  apply_error(R"({"secrets": "/etc"})", "secrets");
}

// The environment map is handed around; the variables that hold keys stay out of it.
TEST(ConfigTest, ProcessEnvironmentLeavesTheKeyVariablesOut) {
  ::setenv("AGENTRT_SECRET_CORE_TEST", "sk-core-test", 1);
  Environment env = process_environment();
  ::unsetenv("AGENTRT_SECRET_CORE_TEST");
  EXPECT_EQ(env.count("AGENTRT_SECRET_CORE_TEST"), 0u);
}

// Plugins are opened only when enabled: the bundled ones unless disabled, and every
// plugin the config names or uses.
TEST(ConfigTest, PluginSelectionIsTheBundledAndNamedLessTheDisabled) {
  const PluginSelection defaults = plugin_selection(load_config({}, {}));
  EXPECT_EQ(defaults.enabled, bundled_plugins());
  EXPECT_TRUE(defaults.disabled.empty());
  test_util::TempDir dir;
  const PluginSelection chosen = plugin_selection(load_file(dir, R"({
    "plugins": {"mine": {}, "openai": {"enabled": false}, "also": {"enabled": true}},
    "auth": "my-auth", "memory_backend": "my-memory",
    "tool_servers": [{"name": "t", "type": "my-tools"}]})"));
  for (const char* name :
       {"echo", "anthropic", "mcp", "mine", "also", "my-auth", "my-memory", "my-tools"})
    EXPECT_EQ(chosen.enabled.count(name), 1u) << name;
  EXPECT_EQ(chosen.enabled.count("openai"), 0u);
  EXPECT_EQ(chosen.disabled, std::set<std::string>{"openai"});
}

}  // namespace
}  // namespace agentrt::core
