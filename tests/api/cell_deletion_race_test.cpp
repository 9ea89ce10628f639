// Writes racing a cell's deletion: memory saves (the backend's own storage), /chat runs
// checked against the cell before its deletion and made live after it, agents and
// cell-scoped tokens. Once the writers have stopped, a cell made again under the same id
// must start empty, and no token issued for the old cell may work in it: unguarded, such
// writes came back in the new cell in 4 of 4 trials.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Writers {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::vector<std::string> tokens;  // issued for the cell while it was being deleted

  void loop(std::function<void()> write) {
    threads.emplace_back([this, write] {
      while (!stop) write();
    });
  }
  void join() {
    stop = true;
    for (std::thread& t : threads) t.join();
  }
};

TEST(CellDeletionRace, WritesRacingADeletionLeaveNothingInTheCellMadeAgain) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  const std::string admin = first_admin_token(agentd);
  const std::string actor =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "racer"}})["token"];
  for (int trial = 0; trial < 4; ++trial) {
    const std::string cell = "race" + std::to_string(trial);
    const std::string base = "/cells/" + cell;
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
    Writers writers;
    for (const char* layer : {"about_me", "consensus"})
      writers.loop([&, layer] {
        call(agentd, "POST", base + "/memory", actor, {{"layer", layer}, {"content", "fact"}});
      });
    writers.loop([&] { call(agentd, "POST", base + "/chat", actor, run_body("hello")); });
    writers.loop([&] {
      static std::atomic<int> n{0};
      call(agentd, "POST", base + "/agents", admin, {{"name", "a" + std::to_string(++n)}});
      HttpResponse issued = call(agentd, "POST", "/admin/tokens", admin,
                                 {{"ttl", "1h"}, {"actor", "scoped"}, {"cell", cell}});
      if (issued.status == 201) {
        std::lock_guard<std::mutex> lock(writers.mutex);
        writers.tokens.push_back(issued.json()["token"]);
      }
    });
    std::this_thread::sleep_for(150ms);
    ASSERT_EQ(call(agentd, "DELETE", "/admin/cells/" + cell, admin).status, 204);
    std::this_thread::sleep_for(50ms);
    writers.join();
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);

    json counts = call(agentd, "GET", base + "/memory/counts", admin).json();
    for (const auto& [layer, n] : counts.items()) EXPECT_EQ(n, 0) << cell << " " << layer;
    EXPECT_TRUE(call(agentd, "GET", base + "/sessions", admin).json()["data"].empty()) << cell;
    EXPECT_TRUE(call(agentd, "GET", base + "/agents", admin).json()["data"].empty()) << cell;
    for (const std::string& token : writers.tokens)
      EXPECT_EQ(call(agentd, "GET", base + "/sessions", token).status, 401) << cell;
  }
}

// The cell made again while writes admitted to the old one still wait on its deletion
// (the recreation sent in a loop from the moment the DELETE is): unguarded, they were
// committed in the new cell, under the old cell's revoked tokens, in 4 and 7 of 10 tries.
TEST(CellDeletionRace, WritesAdmittedBeforeADeletionNeverLandInTheCellMadeAgainAtOnce) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  const std::string admin = first_admin_token(agentd);
  for (int trial = 0; trial < 4; ++trial) {
    const std::string cell = "again" + std::to_string(trial);
    const std::string base = "/cells/" + cell;
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
    const std::string user =
        issue_token(agentd, admin, {{"ttl", "1h"}, {"cell", cell}, {"actor", "old"}})["token"];
    const std::string cell_admin = issue_token(
        agentd, admin,
        {{"ttl", "1h"}, {"cell", cell}, {"actor", "old-admin"}, {"admin", true}})["token"];
    for (int i = 0; i < 200; ++i)  // so that the deletion takes a while
      call(agentd, "POST", base + "/memory", user, {{"layer", "working"}, {"content", "bulk"}});
    Writers writers;
    for (int i = 0; i < 2; ++i) {
      writers.loop([&] {
        call(agentd, "POST", base + "/memory", user, {{"layer", "about_me"}, {"content", "old"}});
      });
    }
    writers.loop([&] { call(agentd, "POST", base + "/chat", user, run_body("old")); });
    writers.loop([&] {
      static std::atomic<int> n{0};
      call(agentd, "POST", base + "/agents", cell_admin, {{"name", "old" + std::to_string(++n)}});
    });
    std::this_thread::sleep_for(100ms);
    std::thread deletion([&] { call(agentd, "DELETE", "/admin/cells/" + cell, admin); });
    while (call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status != 201) {
    }
    deletion.join();
    std::this_thread::sleep_for(50ms);
    writers.join();

    json counts = call(agentd, "GET", base + "/memory/counts", admin).json();
    for (const auto& [layer, n] : counts.items()) EXPECT_EQ(n, 0) << cell << " " << layer;
    EXPECT_TRUE(call(agentd, "GET", base + "/sessions", admin).json()["data"].empty()) << cell;
    EXPECT_TRUE(call(agentd, "GET", base + "/agents", admin).json()["data"].empty()) << cell;
  }
}

}  // namespace
}  // namespace agentrt::test
