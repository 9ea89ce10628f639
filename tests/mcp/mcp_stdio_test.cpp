// The mcp plugin over stdio, against the MCP project's own reference servers
// (server-everything, server-filesystem): listing, calls, failures, cancellation, the
// child's clean environment, and no process left behind.
#include "tests/mcp/mcp_test_support.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace agentrt::mcp_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_F(McpTest, ListsTheToolsOfAServerOverStdio) {
  auto tools = make(everything_stdio());
  const std::string listed = tools->list_tools();
  const auto tool_names = names(listed);
  EXPECT_TRUE(contains(tool_names, "echo")) << listed;
  EXPECT_TRUE(contains(tool_names, "get-sum")) << listed;
  const json parsed = json::parse(listed);
  for (const json& tool : parsed["tools"])
    EXPECT_TRUE(tool["parameters"].is_object()) << tool.dump();
  std::string why;
  EXPECT_TRUE(tools->answers(&why)) << why;
}

TEST_F(McpTest, ACallReturnsTheToolsText) {
  auto tools = make(everything_stdio());
  CallResult echo = call(*tools, "echo", {{"message", "hello from agentrt"}});
  ASSERT_FALSE(echo.error) << echo.error->what();
  EXPECT_FALSE(echo.is_error);
  EXPECT_NE(echo.text.find("hello from agentrt"), std::string::npos) << echo.text;
  CallResult sum = call(*tools, "get-sum", {{"a", 2}, {"b", 40}});
  EXPECT_NE(sum.text.find("42"), std::string::npos) << sum.text;
}

TEST_F(McpTest, BadArgumentsGiveAnErrorResult) {
  auto tools = make(everything_stdio());
  CallResult r = call(*tools, "echo", {{"message", 5}});
  ASSERT_FALSE(r.error) << r.error->what();
  EXPECT_TRUE(r.is_error) << r.text;
  EXPECT_FALSE(r.text.empty());
}

TEST_F(McpTest, ALongResultIsCutAndSaysSo) {
  auto tools = make(everything_stdio());
  CallResult r = call(
      *tools, "echo", {{"message", std::string(5000, 'y')}}, [] { return false; }, nullptr, 1000);
  ASSERT_FALSE(r.error) << r.error->what();
  EXPECT_LE(r.text.size(), 1000u);
  EXPECT_NE(r.text.find("[output cut at 1000 bytes]"), std::string::npos) << r.text;
}

TEST_F(McpTest, ReadsAndListsFilesThroughTheFilesystemServer) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("agentrt-mcp-fs-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "note.txt") << "the note's words";
  auto tools = make({{"command", {"node", filesystem_js(), dir.string()}}});
  EXPECT_TRUE(contains(names(tools->list_tools()), "read_text_file"));
  CallResult listing = call(*tools, "list_directory", {{"path", dir.string()}});
  ASSERT_FALSE(listing.error) << listing.error->what();
  EXPECT_NE(listing.text.find("note.txt"), std::string::npos) << listing.text;
  CallResult read = call(*tools, "read_text_file", {{"path", (dir / "note.txt").string()}});
  EXPECT_NE(read.text.find("the note's words"), std::string::npos) << read.text;
  CallResult outside = call(*tools, "read_text_file", {{"path", "/etc/hostname"}});
  EXPECT_TRUE(outside.is_error || outside.error) << outside.text;
  tools.reset();
  std::filesystem::remove_all(dir);
}

TEST_F(McpTest, ACancelledCallStopsWithinASecondAndNoChildIsLeft) {
  auto tools = make(everything_stdio());
  ASSERT_FALSE(names(tools->list_tools()).empty());
  const std::vector<pid_t> children = children_with("server-everything");
  ASSERT_EQ(children.size(), 1u);
  ASSERT_NO_FATAL_FAILURE(expect_cancel_then_usable(*tools));
  tools.reset();
  EXPECT_NE(kill(children[0], 0), 0) << "the server's process outlived its instance";
}

TEST_F(McpTest, ACancelledCallStopsWhenPolled) {
  auto tools = make(everything_stdio());
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(1500ms);  // after the server started and answered init
    stop = true;
  });
  const auto began = Clock::now();
  CallResult r = call(*tools, "trigger-long-running-operation", {{"duration", 30}, {"steps", 3}},
                      [&] { return stop.load(); });
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_LT(Clock::now() - began, 2500ms);
}

TEST_F(McpTest, AServerThatExitsFailsItsCallsAndIsRestarted) {
  auto tools = make(everything_stdio());
  ASSERT_FALSE(names(tools->list_tools()).empty());
  const std::vector<pid_t> children = children_with("server-everything");
  ASSERT_EQ(children.size(), 1u);
  std::thread killer([&] {
    std::this_thread::sleep_for(300ms);
    kill(children[0], SIGKILL);
  });
  CallResult r = call(*tools, "trigger-long-running-operation", {{"duration", 30}, {"steps", 3}});
  killer.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_STREQ(r.error->what(), "mcp server exited");
  CallResult again = call(*tools, "echo", {{"message", "back"}});
  ASSERT_FALSE(again.error) << again.error->what();
  EXPECT_NE(again.text.find("back"), std::string::npos);
}

TEST_F(McpTest, TheChildOutlivesTheThreadThatFirstUsedIt) {
  auto tools = make(everything_stdio());
  std::thread([&] { tools->list_tools(); }).join();  // a worker that ends
  const std::vector<pid_t> before = children_with("server-everything");
  ASSERT_EQ(before.size(), 1u);
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(call(*tools, "echo", {{"message", "still here"}}).error);
  EXPECT_EQ(children_with("server-everything"), before) << "the server was restarted";
}

TEST_F(McpTest, TheChildGetsACleanEnvironment) {
  setenv("AGENTRT_SECRET_X", "leak", 1);
  auto tools = make(everything_stdio({{"env", {{"MCP_GIVEN", "given-value"}}}}));
  CallResult r = call(*tools, "get-env", json::object());
  unsetenv("AGENTRT_SECRET_X");
  ASSERT_FALSE(r.error) << r.error->what();
  const json env = json::parse(r.text);
  EXPECT_EQ(env.value("MCP_GIVEN", ""), "given-value");
  EXPECT_FALSE(env.contains("AGENTRT_SECRET_X")) << r.text;
  EXPECT_TRUE(env.contains("PATH"));
}

TEST_F(McpTest, ACommandThatDoesNotExistIsAClearErrorNotACrash) {
  auto tools = make({{"command", {"agentrt-no-such-mcp-server"}}});
  std::string why;
  EXPECT_FALSE(tools->answers(&why));
  EXPECT_NE(why.find("agentrt-no-such-mcp-server"), std::string::npos) << why;
  try {
    tools->list_tools();
    FAIL() << "listed the tools of a server that cannot start";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.code, AGENTRT_ERR_UNAVAILABLE) << e.what();
  }
}

TEST_F(McpTest, AServerThatPrintsGarbageIsAClearErrorWithoutAHang) {
  auto tools = make({{"command", {"sh", "-c", "echo not json; sleep 30"}}, {"timeout_ms", 1000}});
  auto began = Clock::now();
  std::string why;
  EXPECT_FALSE(tools->answers(&why));
  EXPECT_NE(why.find("did not answer"), std::string::npos) << why;
  EXPECT_LT(Clock::now() - began, 5s);
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    stop = true;
  });
  began = Clock::now();
  CallResult r = call(*tools, "echo", json::object(), [&] { return stop.load(); });
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED) << r.error->what();
  EXPECT_LT(Clock::now() - began, 1s);
  began = Clock::now();
  tools.reset();
  EXPECT_LT(Clock::now() - began, 3s);
  EXPECT_TRUE(children_with("sleep 30").empty());
}

TEST_F(McpTest, AConfigWithoutExactlyOneTransportOrWithUnknownKeysIsRefused) {
  for (const json& config :
       {json{{"name", "x"}}, json{{"url", "http://127.0.0.1:1/mcp"}, {"command", {"node"}}},
        json{{"command", {"node"}}, {"colour", "blue"}}, json{{"command", json::array()}}}) {
    try {
      make(config);
      FAIL() << "accepted " << config.dump();
    } catch (const PluginError& e) {
      EXPECT_EQ(e.code, AGENTRT_ERR_INVALID_ARGUMENT) << e.what();
      EXPECT_NE(std::string(e.what()).find("mcp config"), std::string::npos) << e.what();
    }
  }
  // The host's own keys are accepted and a server that is down does not fail create.
  EXPECT_NO_THROW(make({{"name", "n"},
                        {"type", "mcp"},
                        {"require_approval", "always"},
                        {"timeout_ms", 5000},
                        {"command", {"agentrt-no-such-mcp-server"}}}));
}

}  // namespace
}  // namespace agentrt::mcp_test
