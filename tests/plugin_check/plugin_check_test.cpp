// agentrt-plugin-check against plugins whose verdict is known: the bundled ones that
// work offline pass, the vendors fail only the completion without an upstream, and
// each broken fixture fails the check that names its fault.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <unistd.h>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using nlohmann::json;

struct Outcome {
  int status = -1;
  std::string out;
};

std::string quoted(const std::string& text) {
  return "'" + text + "'";
}

// Runs the tool with `args` (already quoted as needed), `prefix` before it (an
// environment assignment); stderr is dropped, since plugins log there.
Outcome check(const std::string& args, const std::string& prefix = "") {
  const std::string command = prefix + quoted(AGENTRT_PLUGIN_CHECK) + " " + args + " 2>/dev/null";
  Outcome run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> chunk{};
  for (size_t n; (n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0;)
    run.out.append(chunk.data(), n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string bundled(const std::string& name) {
  return quoted(std::string(AGENTRT_TEST_BUNDLED_DIR) + "/agentrt-" + name + ".so");
}
std::string fixture(const std::string& name) {
  return quoted(std::string(AGENTRT_TEST_FIXTURE_DIR) + "/" + name + ".so");
}

json check_json(const std::string& args) {
  const Outcome run = check("--json " + args);
  json report = json::parse(run.out, nullptr, false);
  EXPECT_TRUE(report.is_object()) << run.out;
  EXPECT_EQ(run.status, report.value("passed", false) ? 0 : 1) << run.out;
  return report;
}

json find_check(const json& report, const std::string& name) {
  for (const json& c : report.value("checks", json::array()))
    if (c.value("name", "") == name) return c;
  ADD_FAILURE() << "no check " << name << " in " << report.dump();
  return json::object();
}

// A config file of the test's own, removed with it.
class ConfigFile {
 public:
  explicit ConfigFile(const json& config)
      : path_((std::filesystem::temp_directory_path() /
               ("plugin-check-test-" + std::to_string(getpid()) + ".json"))
                  .string()) {
    std::ofstream(path_) << config.dump();
  }
  ~ConfigFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(PluginCheck, OfflinePluginsPass) {
  for (const std::string& plugin : {bundled("echo"), bundled("memory-sqlite"),
                                    bundled("auth-token"), fixture("tool-fixture")}) {
    const Outcome run = check(plugin);
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_EQ(run.out.find("\nFAIL "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\nPASSED ("), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\nPASS exported_symbols"), std::string::npos) << run.out;
  }
}

TEST(PluginCheck, KindChecksRun) {
  EXPECT_EQ(find_check(check_json(bundled("echo")), "cancel").value("result", ""), "PASS");
  EXPECT_EQ(find_check(check_json(bundled("memory-sqlite")), "memory_rules").value("result", ""),
            "PASS");
  EXPECT_EQ(find_check(check_json(bundled("auth-token")), "auth_rules").value("result", ""),
            "PASS");
  EXPECT_EQ(find_check(check_json(bundled("echo")), "thread_safety").value("result", ""), "PASS");
}

// The bundled MCP client, pointed at the scripted stdio server of tests/mcp: its tools
// are listed (two pages, a duplicate dropped), and the server's refusal of the default
// call is a warning, not a failure.
TEST(PluginCheck, TheMcpPluginPassesAgainstAScriptedServer) {
  const ConfigFile config(json{{"command", {"/bin/sh", AGENTRT_TEST_MCP_FAKE_SERVER}}});
  const json report = check_json("--config " + quoted(config.path()) + " " + bundled("mcp"));
  EXPECT_TRUE(report.value("passed", false)) << report.dump(2);
  EXPECT_EQ(report.value("kind", ""), "tool");
  const json listed = find_check(report, "list_tools");
  EXPECT_EQ(listed.value("result", ""), "PASS") << listed.dump();
}

TEST(PluginCheck, ToolCallChosenOnTheCommandLine) {
  const json report =
      check_json("--tool add --arguments '{\"a\":1,\"b\":2}' " + fixture("tool-fixture"));
  const json call = find_check(report, "call");
  EXPECT_EQ(call.value("result", ""), "PASS");
  EXPECT_NE(call.value("detail", "").find("-> 3"), std::string::npos) << call.dump();
  // A chosen call that the tool cannot run fails.
  const json down = check_json("--tool down " + fixture("tool-fixture"));
  EXPECT_EQ(find_check(down, "call").value("result", ""), "FAIL");
  EXPECT_FALSE(down.value("passed", true));
}

TEST(PluginCheck, VendorsWithoutUpstreamFailOnlyTheCompletion) {
  const ConfigFile config(
      {{"base_url", "http://127.0.0.1:1"}, {"models", {{{"id", "m"}, {"context_window", 1000}}}}});
  for (const std::string name : {"openai", "anthropic", "ollama"}) {
    const json report = check_json("--config " + quoted(config.path()) + " " + bundled(name));
    EXPECT_FALSE(report.value("passed", true)) << name;
    for (const json& c : report["checks"]) {
      const std::string checked = c.value("name", "");
      if (checked == "complete") {
        EXPECT_EQ(c.value("result", ""), "FAIL") << name;
        EXPECT_NE(c.value("detail", "").find("UNAVAILABLE"), std::string::npos) << c.dump();
      } else {
        EXPECT_NE(c.value("result", ""), "FAIL") << name << ": " << c.dump();
      }
    }
    EXPECT_EQ(find_check(report, "list_models").value("result", ""), "PASS") << name;
  }
}

TEST(PluginCheck, BrokenFixturesFailWithTheReason) {
  const struct {
    const char* fixture;
    const char* check;
    const char* reason;
  } cases[] = {
      {"bad-magic", "load", "bad magic"},         {"wrong-major", "load", "ABI major version 2"},
      {"missing-function", "load", "'complete'"}, {"sdk-throwing", "create", "exploded"},
      {"list-bad", "list_models", "id"},
  };
  for (const auto& c : cases) {
    const Outcome run = check(fixture(c.fixture));
    EXPECT_EQ(run.status, 1) << run.out;
    const std::string line = std::string("\nFAIL ") + c.check + ": ";
    const size_t at = run.out.find(line);
    ASSERT_NE(at, std::string::npos) << c.fixture << ":\n" << run.out;
    const std::string rest = run.out.substr(at + line.size(), run.out.find('\n', at + 1) - at);
    EXPECT_NE(rest.find(c.reason), std::string::npos) << c.fixture << ": " << rest;
    EXPECT_NE(run.out.find("\nFAILED ("), std::string::npos) << run.out;
  }
}

// `text` with each run of digits as '#': a check's detail may say how long something
// took ("CANCELLED 0 ms after the stop"), which two runs need not agree on.
std::string digits_masked(const std::string& text) {
  std::string out;
  for (const char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) || out.empty() || out.back() != '#')
      out += std::isdigit(static_cast<unsigned char>(c)) ? '#' : c;
  return out;
}

TEST(PluginCheck, JsonMatchesTheText) {
  for (const std::string& plugin : {bundled("echo"), fixture("list-bad"), fixture("bad-magic")}) {
    const Outcome text = check(plugin);
    const std::string shown = digits_masked(text.out);
    const json report = check_json(plugin);
    EXPECT_EQ(report.value("passed", false), text.status == 0) << plugin;
    for (const json& c : report["checks"]) {
      std::string line = c.value("result", "") + " " + c.value("name", "");
      if (!c.value("detail", "").empty()) line += ": " + c.value("detail", "");
      // Details naming the temporary data dir differ between runs.
      if (line.find("agentrt-plugin-check-") == std::string::npos) {
        EXPECT_NE(shown.find("\n" + digits_masked(line) + "\n"), std::string::npos) << line;
      }
    }
  }
  const json echo = check_json(bundled("echo"));
  EXPECT_EQ(echo.value("plugin", ""), "echo");
  EXPECT_EQ(echo.value("kind", ""), "provider");
  EXPECT_FALSE(echo.value("abi", "").empty());
}

TEST(PluginCheck, ReadsTheElfFileWithoutNm) {
  const Outcome run = check(bundled("echo"), "PATH=/nonexistent ");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("PASS exported_symbols: only agentrt_plugin_query (the ELF"),
            std::string::npos)
      << run.out;
}

TEST(PluginCheck, UsageErrorsExitTwo) {
  EXPECT_EQ(check("").status, 2);
  EXPECT_EQ(check("--no-such-option " + bundled("echo")).status, 2);
  EXPECT_EQ(check("--config /nonexistent.json " + bundled("echo")).status, 2);
  EXPECT_EQ(check("--arguments '[1]' " + bundled("echo")).status, 2);
}

}  // namespace
