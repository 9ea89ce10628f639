// The protocol's corners, which the reference servers never show, through a scripted
// server (fake_server.sh): version refusal, pagination, duplicate names, JSON-RPC errors,
// malformed results, binary content; and concurrent calls on one reference server.
#include "tests/mcp/mcp_test_support.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace agentrt::mcp_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class McpFakeTest : public McpTest {
 protected:
  bool needs_reference_servers() const override { return false; }
};

json fake(const std::string& version = "2025-06-18") {
  return {{"command", {"/bin/sh", AGENTRT_TEST_MCP_FAKE}}, {"env", {{"FAKE_VERSION", version}}}};
}

// A call that waits for another caller's connect (here a probe, which no run cancels, to
// a server that never answers initialize) still stops within a second when cancelled.
TEST_F(McpFakeTest, ACallWaitingForAnotherConnectStopsWhenCancelled) {
  auto tools = make({{"command", {"sh", "-c", "read line; sleep 30"}}, {"timeout_ms", 3000}});
  std::thread prober([&] { tools->answers(nullptr); });
  std::this_thread::sleep_for(100ms);  // the probe holds the connect
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    stop = true;
  });
  const auto began = Clock::now();
  CallResult r = call(*tools, "echo", json::object(), [&] { return stop.load(); });
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED) << r.error->what();
  EXPECT_LT(Clock::now() - began, 1s);
  prober.join();
}

TEST_F(McpFakeTest, AnOlderProtocolVersionIsRefusedClearly) {
  auto tools = make(fake("2024-11-05"));
  std::string why;
  EXPECT_FALSE(tools->answers(&why));
  EXPECT_NE(why.find("2024-11-05"), std::string::npos) << why;
  auto accepted = make(fake("2025-03-26"));
  EXPECT_TRUE(accepted->answers(&why)) << why;
}

TEST_F(McpFakeTest, ToolsAreReadAcrossPagesAndADuplicateNameKeepsTheFirst) {
  auto tools = make(fake());
  const json listed = json::parse(tools->list_tools());
  ASSERT_EQ(listed["tools"].size(), 3u) << listed.dump();
  EXPECT_EQ(listed["tools"][0]["name"], "first");
  EXPECT_EQ(listed["tools"][1]["description"], "kept");
  EXPECT_EQ(listed["tools"][2]["name"], "third");
  EXPECT_EQ(listed["tools"][2]["parameters"], json({{"type", "object"}}));
}

TEST_F(McpFakeTest, AJsonRpcErrorAndAMalformedResultAreErrorsNotCrashes) {
  auto tools = make(fake());
  CallResult rpc = call(*tools, "rpc-error", json::object());
  ASSERT_TRUE(rpc.error);
  EXPECT_EQ(rpc.error->code, AGENTRT_ERR_UPSTREAM);
  EXPECT_STREQ(rpc.error->what(), "mcp error -32000: the fake broke");
  CallResult bad = call(*tools, "malformed", json::object());
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->code, AGENTRT_ERR_UPSTREAM) << bad.error->what();
  EXPECT_FALSE(call(*tools, "image", json::object()).error);  // still usable
}

TEST_F(McpFakeTest, BinaryContentIsSummarisedNotPassedOn) {
  auto tools = make(fake());
  CallResult r = call(*tools, "image", json::object());
  ASSERT_FALSE(r.error) << r.error->what();
  EXPECT_EQ(r.text, "look:\n[image image/png, 8 bytes base64]\n[resource file:///x]");
}

TEST_F(McpTest, CallsRunAtOnceOnOneServer) {
  auto tools = make(everything_stdio());
  std::vector<std::thread> threads;
  std::vector<CallResult> results(4);
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      results[i] = call(*tools, "echo", {{"message", "caller " + std::to_string(i)}});
    });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_FALSE(results[i].error) << results[i].error->what();
    EXPECT_NE(results[i].text.find("caller " + std::to_string(i)), std::string::npos);
  }
}

}  // namespace
}  // namespace agentrt::mcp_test
