// Runs whose tools are a real MCP server (the MCP project's server-everything, which
// nobody here wrote), over stdio and streamable HTTP, against the real agentd: the
// model's call reaches the server and its answer the model; an interrupt during the
// server's long-running operation ends the run within a second; and no server process
// outlives agentd.
#include "tests/api/server_tools_client.h"
#include "tests/mcp/reference_servers.h"

#include <gtest/gtest.h>

#include <chrono>

namespace agentrt::test {
namespace {

using nlohmann::json;
namespace ref = mcp_reference;

// Processes whose environment holds `marker` (the stdio server's entry sets it).
std::vector<pid_t> processes_marked(const std::string& marker) {
  std::vector<pid_t> out;
  for (const pid_t pid : ref::all_processes())
    if (ref::proc_file(pid, "environ").find(marker) != std::string::npos) out.push_back(pid);
  return out;
}

class McpRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ref::servers_missing().empty()) GTEST_SKIP() << ref::servers_missing();
  }
  void start(const json& server) {
    const json config = {{"tool_servers", {server}}};
    s = std::make_unique<VendorSetup>(
        Vendor::openai, with_args({"--config", dir.write("config.json", config.dump())}));
    auto made = call(s->agentd, "POST", "/agents", s->admin,
                     {{"name", "mcp-user"},
                      {"model", vendor_model(Vendor::openai)},
                      {"tools", {{{"type", "mcp"}, {"server", "everything"}}}}});
    ASSERT_EQ(made.status, 201) << made.body;
    agent = made.json()["id"];
  }
  json body(const std::string& session) {
    return s->body("go", {{"agent_id", agent}, {"session_id", session}});
  }
  // The model calls the server's echo tool, then answers with what it gave.
  void expect_echo_round_trip() {
    s->fake.enqueue(Reply::calling({{"call_e", "echo", R"({"message":"hello mcp"})"}}));
    s->fake.enqueue(Reply::answer("it said hello", 1));
    const std::vector<json> events = run_events(*s, body("e1"));
    const std::vector<json> results = of_type(events, "tool_result");
    ASSERT_EQ(results.size(), 1u) << json(events).dump();
    EXPECT_EQ(results[0]["is_error"], false);
    EXPECT_NE(results[0]["output"].get<std::string>().find("hello mcp"), std::string::npos);
    const json sent = s->fake.requests().back().json()["messages"];
    ASSERT_EQ(sent.size(), 3u) << sent.dump();
    EXPECT_NE(sent[2]["content"].get<std::string>().find("hello mcp"), std::string::npos);
    EXPECT_EQ(events.back()["reason"], "end_turn");
  }
  // server-everything's 30 s operation, interrupted once the call is out.
  void expect_interrupt_within_a_second() {
    s->fake.enqueue(Reply::calling(
        {{"call_l", "trigger-long-running-operation", R"({"duration":30,"steps":3})"}}));
    auto stream = open_run(s->agentd, s->admin, body("l1"));
    ASSERT_EQ(stream->status(), 200);
    for (auto event = stream->next(); event; event = stream->next())
      if ((*event)["type"] == "tool_call") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the call is under way
    const auto asked = std::chrono::steady_clock::now();
    EXPECT_EQ(call(s->agentd, "POST", "/sessions/l1/interrupt", s->admin).status, 200);
    const std::vector<json> rest = stream->rest();
    EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::milliseconds(1000));
    ASSERT_FALSE(rest.empty());
    EXPECT_EQ(rest.back()["reason"], "interrupted");
    const std::vector<json> results = of_type(rest, "tool_result");
    ASSERT_EQ(results.size(), 1u) << json(rest).dump();
    EXPECT_EQ(results[0]["output"], "interrupted");
  }

  TempDir dir;
  std::unique_ptr<VendorSetup> s;
  std::string agent;
};

TEST_F(McpRuns, OverStdioACallRunsAnInterruptStopsItAndNoProcessOutlivesAgentd) {
  const std::string marker = "AGENTRT_TEST_MARK=" + std::to_string(getpid()) + "-stdio";
  start({{"name", "everything"},
         {"command", {"node", ref::everything_js(), "stdio"}},
         {"env", {{"AGENTRT_TEST_MARK", marker.substr(marker.find('=') + 1)}}}});
  expect_echo_round_trip();
  expect_interrupt_within_a_second();
  EXPECT_EQ(processes_marked(marker).size(), 1u) << "one server process, still serving";
  // The server answers the next run after the cancelled call.
  s->fake.enqueue(Reply::calling({{"call_2", "echo", R"({"message":"again"})"}}));
  s->fake.enqueue(Reply::answer("ok", 1));
  const std::vector<json> again = run_events(*s, body("l1"));
  EXPECT_EQ(of_type(again, "tool_result").at(0)["is_error"], false) << json(again).dump();

  EXPECT_EQ(s->agentd.stop(), 0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!processes_marked(marker).empty() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(processes_marked(marker).empty()) << "the server ended with agentd";
}

TEST_F(McpRuns, OverStreamableHttpACallRunsAndAnInterruptStopsIt) {
  ref::EverythingHttp server;
  const std::string why = server.start();
  ASSERT_TRUE(why.empty()) << why;
  // Credentials in the entry's URL and headers never reach a result, an event or the log.
  std::string url = server.url();
  url.insert(url.find("://") + 3, "user:pw-s3cr3t@");
  start({{"name", "everything"},
         {"url", url},
         {"headers", {{"Authorization", {{"source", "inline"}, {"value", "Bearer h-s3cr3t"}}}}}});
  expect_echo_round_trip();
  expect_interrupt_within_a_second();
  s->fake.enqueue(Reply::calling({{"call_x", "no-such-tool", "{}"}, {"call_y", "echo", "{}"}}));
  s->fake.enqueue(Reply::answer("ok", 1));
  const std::vector<json> failed = run_events(*s, body("x1"));
  const std::vector<json> results = of_type(failed, "tool_result");
  ASSERT_EQ(results.size(), 2u) << json(failed).dump();
  EXPECT_EQ(results[0]["is_error"], true);
  EXPECT_EQ(results[1]["is_error"], true) << "echo without its message";
  EXPECT_EQ(json(failed).dump().find("s3cr3t"), std::string::npos) << json(failed).dump();
  EXPECT_EQ(session_messages(*s, "x1").dump().find("s3cr3t"), std::string::npos);
  for (const json& line : s->agentd.log_lines())
    EXPECT_EQ(line.dump().find("s3cr3t"), std::string::npos) << line.dump();
}

}  // namespace
}  // namespace agentrt::test
