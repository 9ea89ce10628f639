// A store that cannot serve for now (here: held locked by a connection of the test's own
// past agentd's busy wait, as the sqlite3 shell could; a full disk is the same case): the
// request is 503 with Retry-After, and a delete that fails leaves what it deletes whole,
// so that sending it again finishes it.
#include "tests/api/admin_client.h"
#include "tests/api/store_connection.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

class StoreFault : public ::testing::Test {
 protected:
  void SetUp() override { admin = first_admin_token(agentd); }

  HttpResponse act(const std::string& method, const std::string& path,
                   const json& body = nullptr) const {
    return call(agentd, method, path, admin, body);
  }
  static void expect_for_now(const HttpResponse& response) {
    EXPECT_EQ(response.status, 503) << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "unavailable");
    EXPECT_EQ(response.header("Retry-After"), "1");
  }
  size_t entries(const std::string& query) const {
    return act("GET", "/memory?" + query).json()["data"].size();
  }

  AgentdProcess agentd;
  std::string admin;
};

TEST_F(StoreFault, AStateStoreHeldPastTheWaitIs503NotAnInternalError) {
  StoreConnection state(agentd.data_dir() + "/state.db");
  state.exec("BEGIN IMMEDIATE");
  const HttpResponse refused =
      act("POST", "/chat",
          {{"model", "echo"},
           {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "x"}}}}}}}});
  state.exec("ROLLBACK");
  expect_for_now(refused);
  EXPECT_EQ(refused.body.find(agentd.data_dir()), std::string::npos) << "no path for clients";
}

TEST_F(StoreFault, ASessionWhoseMemoryCannotGoStaysForTheDeleteToBeSentAgain) {
  ASSERT_EQ(
      act("POST", "/chat",
          {{"model", "echo"},
           {"session_id", "s1"},
           {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "x"}}}}}}}})
          .status,
      200);
  ASSERT_EQ(
      act("POST", "/memory", {{"layer", "session"}, {"session_id", "s1"}, {"content", "m"}}).status,
      201);
  StoreConnection memory(agentd.data_dir() + "/memory.db");
  memory.exec("BEGIN IMMEDIATE");
  const HttpResponse refused = act("DELETE", "/sessions/s1");
  memory.exec("ROLLBACK");
  expect_for_now(refused);
  EXPECT_EQ(act("GET", "/sessions/s1/messages").status, 200) << "the session is still there";
  EXPECT_EQ(act("DELETE", "/sessions/s1").status, 204);
  EXPECT_EQ(entries("layer=session&session_id=s1"), 0u) << "and its memory went with it";
}

TEST_F(StoreFault, AnAgentWhoseMemoryCannotGoStaysForTheDeleteToBeSentAgain) {
  const json agent = act("POST", "/agents", {{"name", "helper"}, {"namespace", "ns1"}}).json();
  const std::string path = "/agents/" + agent["id"].get<std::string>();
  ASSERT_EQ(
      act("POST", "/memory", {{"layer", "agent_memory"}, {"namespace", "ns1"}, {"content", "k"}})
          .status,
      201);
  StoreConnection memory(agentd.data_dir() + "/memory.db");
  memory.exec("BEGIN IMMEDIATE");
  const HttpResponse refused = act("DELETE", path);
  memory.exec("ROLLBACK");
  expect_for_now(refused);
  EXPECT_EQ(act("GET", path).status, 200) << "the agent is still there";
  EXPECT_EQ(act("DELETE", path).status, 204);
  EXPECT_EQ(entries("layer=agent_memory&namespace=ns1"), 0u) << "and its memory went with it";
}

// The data dir removed under a running agentd: every store refuses writes it could not
// keep, rather than acknowledge them into unlinked files, lost at the next start.
TEST_F(StoreFault, WithTheDataDirRemovedNoWriteIsAcknowledged) {
  const json chat = {
      {"model", "echo"},
      {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "x"}}}}}}}};
  ASSERT_EQ(act("POST", "/chat", chat).status, 200);
  std::filesystem::remove_all(agentd.data_dir());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // stores look every 50 ms
  expect_for_now(act("POST", "/memory", {{"layer", "working"}, {"content", "kept?"}}));
  expect_for_now(act("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "x"}}));
  expect_for_now(act("POST", "/chat", chat));
  expect_for_now(act("POST", "/agents", {{"name", "helper"}}));
}

}  // namespace
}  // namespace agentrt::test
