// A step's server calls (core/tools/server_calls.h) against the fixture tool plugin: all
// at once, each bounded by its server's timeout, cut at the output limit, stopped by the
// run's cancellation within a second, and each ending with a result the model can read.
#include "core/tools/server_calls.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>

#include <atomic>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

ToolServerConfig fixture_entry(const std::string& name, uint64_t timeout_ms) {
  ToolServerConfig config;
  config.name = name;
  config.type = "tool-fixture";
  config.timeout_ms = timeout_ms;
  config.entry = {{"name", name}, {"type", "tool-fixture"}};
  return config;
}

class ServerCalls : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host.load(test::fixture("tool-fixture")).loaded);
    servers = std::make_unique<ToolServers>(
        host,
        std::vector<ToolServerConfig>{fixture_entry("quick", 300), fixture_entry("slow", 60000)});
  }
  ServerCall call(const std::string& server, const std::string& name, const std::string& arguments,
                  const std::string& id = "c1") {
    return ServerCall{ToolCall{id, name, arguments}, servers->find(server)};
  }
  std::vector<ToolResult> run(const std::vector<ServerCall>& calls,
                              const std::function<bool()>& cancelled = {}, uint64_t limit = 4096) {
    return run_server_calls(calls, limit, cancelled);
  }

  PluginHost host;
  std::unique_ptr<ToolServers> servers;
};

TEST_F(ServerCalls, CallsRunAtOnceAndAnswerInTheirOrder) {
  const auto began = Clock::now();
  auto results =
      run({call("slow", "wait", R"({"ms":1000})", "a"), call("slow", "wait", R"({"ms":1000})", "b"),
           call("slow", "add", R"({"a":1,"b":2})", "c")});
  EXPECT_LT(Clock::now() - began, 1900ms);  // not one after the other (2 s)
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].call_id, "a");
  EXPECT_EQ(results[0].output, "waited");
  EXPECT_EQ(results[2].call_id, "c");
  EXPECT_EQ(results[2].name, "add");
  EXPECT_EQ(results[2].output, "3");
  EXPECT_FALSE(results[2].is_error);
  EXPECT_GE(results[0].duration_ms, 1000);
}

TEST_F(ServerCalls, FailuresBecomeErrorResults) {
  auto results = run({call("slow", "fail", "{}", "a"), call("slow", "down", "{}", "b"),
                      call("slow", "add", "[1,2]", "c"), call("slow", "add", "{\"a\":", "d")});
  EXPECT_TRUE(results[0].is_error);
  EXPECT_EQ(results[0].output, "it broke");
  EXPECT_TRUE(results[1].is_error);
  EXPECT_EQ(results[1].output, "tool server down");
  for (int i : {2, 3}) {
    EXPECT_TRUE(results[i].is_error);
    EXPECT_NE(results[i].output.find("not a JSON object"), std::string::npos) << results[i].output;
  }
}

TEST_F(ServerCalls, ACallPastItsServersTimeoutIsStopped) {
  const auto began = Clock::now();
  auto results = run({call("quick", "wait", R"({"ms":30000})")});
  EXPECT_LT(Clock::now() - began, 1300ms);
  EXPECT_TRUE(results[0].is_error);
  EXPECT_FALSE(results[0].interrupted);
  EXPECT_EQ(results[0].output, "timed out after 300 ms");
}

TEST_F(ServerCalls, TheRunsCancellationStopsEveryCallWithinASecond) {
  const auto began = Clock::now();
  auto results = run(
      {call("slow", "wait", R"({"ms":30000})", "a"), call("slow", "add", R"({"a":1,"b":1})", "b")},
      [&] { return Clock::now() - began > 100ms; });
  EXPECT_LT(Clock::now() - began, 1100ms);
  EXPECT_TRUE(results[0].interrupted);
  EXPECT_EQ(results[0].output, "interrupted");
  EXPECT_FALSE(results[1].interrupted);  // it had finished
  EXPECT_EQ(results[1].output, "2");
}

TEST_F(ServerCalls, AHugeResultIsCutWithANote) {
  auto results = run({call("slow", "big", R"({"bytes":50000000})")}, {}, 2048);
  EXPECT_FALSE(results[0].is_error);
  EXPECT_EQ(results[0].output, std::string(2048, 'x') + "\n[output cut at 2048 bytes]");
}

TEST_F(ServerCalls, TheServerIsSentTheCallAsTheAbiSays) {
  auto results = run({call("slow", "whoami", R"({"k":"v"})", "call_9")}, {}, 777);
  const auto sent = nlohmann::json::parse(results[0].output);
  EXPECT_EQ(sent, nlohmann::json({{"name", "whoami"},
                                  {"arguments", {{"k", "v"}}},
                                  {"call_id", "call_9"},
                                  {"max_output_bytes", 777}}));
}

}  // namespace
}  // namespace agentrt::core
