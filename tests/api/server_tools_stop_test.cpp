// Server tool calls stopped from outside (docs/tools.md, "Cancellation"), against the
// real agentd: a client that leaves, a run that another interrupts with if_busy, and a
// shutdown each stop a running tool call within a second, end the run interrupted, and
// leave nothing pending on the session.
#include "tests/api/server_tools_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

class StoppedToolCalls : public ServerToolsApi {
 protected:
  void SetUp() override { agent = make_agent({{{"type", "mcp"}, {"server", "slow"}}}); }
  // A /run whose model calls the 30 s wait, read up to the call.
  std::unique_ptr<SseClient> waiting_run(const std::string& session) {
    s.fake.enqueue(Reply::calling({{"call_w", "wait", R"({"ms":30000})"}}));
    auto stream = open_run(s.agentd, s.admin, agent_body(agent, "wait", session));
    EXPECT_EQ(stream->status(), 200);
    for (auto event = stream->next(); event; event = stream->next())
      if ((*event)["type"] == "tool_call") break;
    // The call goes out as the model streams it; the step (and then the tool) runs once
    // the model's answer has ended, a moment later. A stop before that is a stop of the
    // model's answer, which leaves no call at all.
    std::this_thread::sleep_for(milliseconds(300));
    return stream;
  }
  // The session holds the question, the call, its result stored as interrupted, and
  // the next run's turn: nothing was left pending.
  void expect_call_interrupted(const std::string& session) {
    const json stored = session_messages(s, session);
    ASSERT_EQ(stored.size(), 5u) << stored.dump();
    EXPECT_EQ(stored[2]["content"][0]["output"], "interrupted");
    EXPECT_EQ(stored[2]["content"][0]["is_error"], true);
  }
  std::string agent;
};

TEST_F(StoppedToolCalls, AClientThatLeavesStopsTheCall) {
  auto stream = waiting_run("gone1");
  const auto left = steady_clock::now();
  stream->close();
  // The session is free once the run has stopped: a plain run on it then succeeds.
  s.fake.enqueue(Reply::answer("back", 1));
  int status = 0;
  while (steady_clock::now() - left < milliseconds(5000)) {
    status = chat(agent_body(agent, "again", "gone1")).status;
    if (status != 409) break;
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(status, 200);
  EXPECT_LT(steady_clock::now() - left, milliseconds(1500));
  expect_call_interrupted("gone1");
}

TEST_F(StoppedToolCalls, IfBusyInterruptStopsTheCallOfTheRunItReplaces) {
  auto stream = waiting_run("busy1");
  const auto asked = steady_clock::now();
  s.fake.enqueue(Reply::answer("replaced", 1));
  auto replaced = chat(agent_body(agent, "instead", "busy1", {{"if_busy", "interrupt"}}));
  EXPECT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_LT(steady_clock::now() - asked, milliseconds(1500));
  const std::vector<json> rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  expect_call_interrupted("busy1");
}

TEST_F(StoppedToolCalls, AShutdownStopsTheCallAndEndsTheRunInterrupted) {
  auto stream = waiting_run("down1");
  const auto asked = steady_clock::now();
  ::kill(s.agentd.pid(), SIGTERM);
  const std::vector<json> rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  EXPECT_EQ(of_type(rest, "tool_result").at(0)["output"], "interrupted");
  // The grace period (1 s), then the call stopped within a second.
  EXPECT_LT(steady_clock::now() - asked, milliseconds(2500));
  EXPECT_EQ(s.agentd.stop(0), 0);
}

}  // namespace
}  // namespace agentrt::test
