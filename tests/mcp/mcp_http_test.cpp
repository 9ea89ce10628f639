// The mcp plugin over streamable HTTP, against server-everything serving HTTP on a free
// port as a child of the test, and against asking_server.cjs for the server's own
// requests during a call.
#include "tests/mcp/mcp_test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

extern char** environ;

namespace agentrt::mcp_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A port nothing listens on right now (the kernel's pick for a socket bound to 0).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

class McpHttpTest : public McpTest {
 protected:
  // The server the test talks to; it listens on $PORT.
  virtual std::vector<std::string> server_command() const {
    return {"node", everything_js(), "streamableHttp"};
  }

  void SetUp() override {
    McpTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    port = free_port();
    const std::string port_env = "PORT=" + std::to_string(port);
    std::vector<std::string> args = server_command();
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env = {port_env, std::string("PATH=") + std::getenv("PATH"),
                                    "NODE_PATH=" + servers_dir() + "/node_modules"};
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    ASSERT_EQ(posix_spawnp(&server, "node", &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    const auto until = Clock::now() + 20s;
    while (!accepts(port) && Clock::now() < until) std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(accepts(port)) << args[1] << " did not listen on port " << port;
  }
  void TearDown() override {
    if (server > 0) {
      kill(server, SIGKILL);
      waitpid(server, nullptr, 0);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }

  pid_t server = -1;
  int port = 0;
};

TEST_F(McpHttpTest, ListsAndCallsToolsOverStreamableHttp) {
  auto tools = make({{"name", "everything-http"}, {"type", "mcp"}, {"url", url()}});
  std::string why;
  EXPECT_TRUE(tools->answers(&why)) << why;
  const std::string listed = tools->list_tools();
  const auto tool_names = names(listed);
  EXPECT_NE(std::find(tool_names.begin(), tool_names.end(), "echo"), tool_names.end()) << listed;
  CallResult echo = call(*tools, "echo", {{"message", "over http"}});
  ASSERT_FALSE(echo.error) << echo.error->what();
  EXPECT_NE(echo.text.find("over http"), std::string::npos) << echo.text;
  CallResult bad = call(*tools, "echo", {{"message", 5}});
  EXPECT_TRUE(bad.is_error) << bad.text;
  EXPECT_TRUE(tools->answers(&why)) << why;  // a ping in the session it holds
}

TEST_F(McpHttpTest, ACancelledCallStopsWithinASecond) {
  auto tools = make({{"url", url()}});
  ASSERT_FALSE(names(tools->list_tools()).empty());
  std::chrono::milliseconds took{};
  CallResult r = cancel_long_operation(*tools, &took);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_LT(took, 1300ms);
  EXPECT_FALSE(call(*tools, "echo", {{"message", "after"}}).error);
}

TEST_F(McpHttpTest, AServerThatIsDownIsAClearErrorAndNeverShowsTheSecret) {
  const std::string down = "http://127.0.0.1:" + std::to_string(free_port()) + "/mcp";
  json config = {
      {"url", down},
      {"headers", {{"Authorization", {{"source", "inline"}, {"value", "Bearer s3cr3t-token"}}}}}};
  auto tools = make(config);  // create does not reach the server
  std::string why;
  EXPECT_FALSE(tools->answers(&why));
  EXPECT_NE(why.find("unreachable"), std::string::npos) << why;
  EXPECT_EQ(why.find("s3cr3t"), std::string::npos) << why;
  try {
    tools->list_tools();
    FAIL() << "listed the tools of a server that is down";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.code, AGENTRT_ERR_UNAVAILABLE) << e.what();
    EXPECT_EQ(std::string(e.what()).find("s3cr3t"), std::string::npos);
  }
}

TEST_F(McpHttpTest, ARefusedRequestSaysWhy) {
  // Wrong path: the server's 404 page, not an MCP endpoint.
  auto tools = make({{"url", "http://127.0.0.1:" + std::to_string(port) + "/not-mcp"}});
  std::string why;
  EXPECT_FALSE(tools->answers(&why));
  EXPECT_NE(why.find("HTTP 404"), std::string::npos) << why;
}

// A server made with the MCP project's SDK, whose tool asks the client for a ping and
// for a sampling while it runs, on the call's response stream.
class McpAskingServerTest : public McpHttpTest {
 protected:
  std::vector<std::string> server_command() const override {
    return {"node", AGENTRT_TEST_MCP_ASKING_SERVER};
  }
};

TEST_F(McpAskingServerTest, TheServersRequestsDuringACallAreAnswered) {
  auto tools = make({{"url", url()}, {"timeout_ms", 5000}});
  const auto began = Clock::now();
  CallResult r = call(*tools, "ask", json::object());
  ASSERT_FALSE(r.error) << r.error->what();
  // Left unanswered, the server would wait out the call's timeout.
  EXPECT_EQ(r.text,
            "the client answered ping and refused sampling: "
            "MCP error -32601: method not supported by agentrt");
  EXPECT_LT(Clock::now() - began, 3s);
}

}  // namespace
}  // namespace agentrt::mcp_test
