// The mcp plugin over streamable HTTP, against server-everything serving HTTP on a free
// port as a child of the test, and against asking_server.cjs for the server's own
// requests during a call.
#include "tests/mcp/mcp_test_support.h"

#include <chrono>

namespace agentrt::mcp_test {
namespace {

using namespace std::chrono_literals;

using mcp_reference::EverythingHttp;
using mcp_reference::free_port;

class McpHttpTest : public McpTest {
 protected:
  // The server the test talks to; it listens on $PORT.
  virtual std::vector<std::string> server_command() const {
    return {"node", everything_js(), "streamableHttp"};
  }

  void SetUp() override {
    McpTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string why = server.start(server_command());
    ASSERT_TRUE(why.empty()) << why;
    port = server.port();
  }
  std::string url() const { return server.url(); }

  EverythingHttp server;
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
  ASSERT_NO_FATAL_FAILURE(expect_cancel_then_usable(*tools));
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
