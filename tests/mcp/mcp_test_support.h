// Shared by the mcp plugin's tests: the reference MCP servers (reference_servers.h),
// the built plugin loaded through the host, and a call helper.
#pragma once

#include "core/plugin_host/plugin_host.h"
#include "core/plugin_host/tool_instance.h"
#include "tests/mcp/reference_servers.h"
#include "tests/plugin_host/tool_call.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::mcp_test {

using core::CancelWaker;
using core::PluginError;
using core::ToolInstance;
using nlohmann::json;

using CallResult = test::ToolCallResult;

using mcp_reference::everything_js;
using mcp_reference::filesystem_js;
using mcp_reference::servers_missing;

// Processes whose parent is this one and whose command line holds `needle`.
inline std::vector<pid_t> children_with(const std::string& needle) {
  std::vector<pid_t> out;
  for (const pid_t pid : mcp_reference::all_processes()) {
    const std::string line = mcp_reference::proc_file(pid, "stat");
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == getpid() &&
        mcp_reference::proc_file(pid, "cmdline").find(needle) != std::string::npos)
      out.push_back(pid);
  }
  return out;
}

class McpTest : public ::testing::Test {
 protected:
  // The scripted server's tests run without npm; the reference servers' need it.
  virtual bool needs_reference_servers() const { return true; }

  void SetUp() override {
    if (needs_reference_servers() && !servers_missing().empty()) GTEST_SKIP() << servers_missing();
    core::PluginStatus status = host.load(AGENTRT_TEST_MCP_PLUGIN);
    ASSERT_TRUE(status.loaded) << status.error;
    ASSERT_EQ(status.kind, "tool");
  }

  std::unique_ptr<ToolInstance> make(const json& config) {
    return std::make_unique<ToolInstance>(host.find("mcp"), config.dump());
  }
  json everything_stdio(json extra = json::object()) {
    json config = {
        {"name", "everything"}, {"type", "mcp"}, {"command", {"node", everything_js(), "stdio"}}};
    config.update(extra);
    return config;
  }

  CallResult call(
      ToolInstance& tools, const std::string& name, const json& arguments,
      const std::function<bool()>& cancelled = [] { return false; }, CancelWaker* waker = nullptr,
      size_t max_output = 100000) {
    return test::call_tool(tools, name, arguments, cancelled, waker, max_output);
  }

  // server-everything's 30 s operation, cancelled through the waker after 300 ms: the
  // call's result and how long it took.
  CallResult cancel_long_operation(ToolInstance& tools, std::chrono::milliseconds* took) {
    std::atomic<bool> stop{false};
    CancelWaker waker;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      stop = true;
      waker.wake();
    });
    const auto began = std::chrono::steady_clock::now();
    CallResult r = call(
        tools, "trigger-long-running-operation", {{"duration", 30}, {"steps", 3}},
        [&] { return stop.load(); }, &waker);
    canceller.join();
    *took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  began);
    return r;
  }

  // The long operation cancelled stops the call within a second (with the waker's 300
  // ms before it), and the same instance then answers the next call.
  void expect_cancel_then_usable(ToolInstance& tools) {
    std::chrono::milliseconds took{};
    CallResult r = cancel_long_operation(tools, &took);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
    EXPECT_LT(took, std::chrono::milliseconds(1300));
    EXPECT_FALSE(call(tools, "echo", {{"message", "after"}}).error);
  }

  static std::vector<std::string> names(const std::string& listed) {
    std::vector<std::string> out;
    const json parsed = json::parse(listed);  // kept: a range-for over a temporary's member dangles
    for (const json& tool : parsed["tools"]) out.push_back(tool["name"]);
    return out;
  }

  core::PluginHost host;
};

}  // namespace agentrt::mcp_test
