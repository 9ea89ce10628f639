// The host's side of the tool kind (ABI 1.9): a tool plugin loads as kind "tool", lists
// its tools, runs calls whose result, failure and cancellation come back as the ABI
// says, and a create that refuses its config is an error, not a crash.
#include "core/plugin_host/plugin_host.h"
#include "core/plugin_host/tool_instance.h"
#include "tests/plugin_host/test_paths.h"
#include "tests/plugin_host/tool_call.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <optional>
#include <thread>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

using CallResult = test::ToolCallResult;
class ToolPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginStatus status = host.load(test::fixture("tool-fixture"));
    ASSERT_TRUE(status.loaded) << status.error;
    EXPECT_EQ(status.kind, "tool");
    EXPECT_EQ(status.abi, AGENTRT_ABI_VERSION_STRING);
    tools = std::make_unique<ToolInstance>(host.find("tool-fixture"), R"({"prefix":"t_"})");
  }

  CallResult call(
      const std::string& name, const json& arguments,
      const std::function<bool()>& cancelled = [] { return false; }, CancelWaker* waker = nullptr) {
    return test::call_tool(*tools, name, arguments, cancelled, waker, 1000);
  }

  PluginHost host;
  std::unique_ptr<ToolInstance> tools;
};

TEST_F(ToolPlugin, ListsItsToolsWithTheirSchemas) {
  const json listed = json::parse(tools->list_tools());
  ASSERT_EQ(listed["tools"].size(), 6u);
  EXPECT_EQ(listed["tools"][0]["name"], "t_add");
  EXPECT_EQ(listed["tools"][0]["parameters"]["required"], json::array({"a", "b"}));
  std::string why;
  EXPECT_TRUE(tools->answers(&why)) << why;  // no probe: taken as answering
}

TEST_F(ToolPlugin, ACallReturnsItsResultAndTheRequestAsSent) {
  CallResult sum = call("t_add", {{"a", 2}, {"b", 40}});
  EXPECT_FALSE(sum.error) << sum.error->what();
  EXPECT_EQ(sum.text, "42");
  EXPECT_FALSE(sum.is_error);
  CallResult echo = call("t_whoami", json::object());
  EXPECT_EQ(json::parse(echo.text)["call_id"], "c1");
  EXPECT_EQ(json::parse(echo.text)["max_output_bytes"], 1000);
}

TEST_F(ToolPlugin, AFailureOfTheToolAndAToolThatCannotRunDiffer) {
  CallResult failed = call("t_fail", json::object());
  EXPECT_FALSE(failed.error);
  EXPECT_TRUE(failed.is_error);
  EXPECT_EQ(failed.text, "it broke");
  CallResult down = call("t_down", json::object());
  ASSERT_TRUE(down.error);
  EXPECT_EQ(down.error->code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_STREQ(down.error->what(), "tool server down");
}

TEST_F(ToolPlugin, ACancelledCallStopsThroughItsWaker) {
  std::atomic<bool> stop{false};
  CancelWaker waker;
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    stop = true;
    waker.wake();
  });
  const auto began = Clock::now();
  CallResult r = call(
      "t_wait", {{"ms", 30000}}, [&] { return stop.load(); }, &waker);
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_LT(Clock::now() - began, 1s);
}

TEST_F(ToolPlugin, ACancelledCallStopsWhenPolled) {
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    stop = true;
  });
  const auto began = Clock::now();
  CallResult r = call("t_wait", {{"ms", 30000}}, [&] { return stop.load(); });
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_LT(Clock::now() - began, 1s);
}

TEST_F(ToolPlugin, ARefusedConfigIsAnErrorNamingIt) {
  try {
    ToolInstance refused(host.find("tool-fixture"), R"({"refuse":true})");
    FAIL() << "create accepted a config it refuses";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.code, AGENTRT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("refused config"), std::string::npos);
  }
}

}  // namespace
}  // namespace agentrt::core
