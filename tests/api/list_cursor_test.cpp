// List cursors as another tenant's actor sees them: carrying the row's position in the
// clear, from counters that span every cell, two of one actor's cursors would tell how
// many memory entries and sessions every other tenant wrote in between. They are sealed
// under the data dir's key, and still page after a restart.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

AgentdOptions multi_on(const std::string& dir) {
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir, "--mode", "multi"};
  return options;
}

// Digits two cursors share in place, past their prefix: about 1 in 16 by chance.
int same_digits(const std::string& a, const std::string& b, size_t prefix) {
  int same = 0;
  for (size_t i = prefix; i < a.size() && i < b.size(); ++i) same += a[i] == b[i] ? 1 : 0;
  return same;
}

struct Tenants {
  explicit Tenants(const AgentdProcess& agentd) : admin(first_admin_token(agentd)) {
    for (const char* cell : {"acme", "beta"})
      EXPECT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
    alice =
        issue_token(agentd, admin, {{"actor", "alice"}, {"cell", "acme"}, {"ttl", "1h"}})["token"];
    eve = issue_token(agentd, admin, {{"actor", "eve"}, {"cell", "beta"}, {"ttl", "1h"}})["token"];
  }
  std::string admin, alice, eve;
};

std::string memory_cursor(const AgentdProcess& agentd, const std::string& token) {
  return call(agentd, "GET", "/cells/beta/memory?layer=about_me&limit=1", token)
      .json()["next_cursor"];
}
std::string session_cursor(const AgentdProcess& agentd, const std::string& token) {
  return call(agentd, "GET", "/cells/beta/sessions?limit=1", token).json()["next_cursor"];
}
void remember(const AgentdProcess& agentd, const std::string& token, const std::string& cell,
              const std::string& what) {
  EXPECT_EQ(call(agentd, "POST", "/cells/" + cell + "/memory", token,
                 {{"layer", "about_me"}, {"content", what}})
                .status,
            201);
}
void chat(const AgentdProcess& agentd, const std::string& token, const std::string& cell) {
  EXPECT_EQ(call(agentd, "POST", "/cells/" + cell + "/chat", token, run_body("hi")).status, 200);
}

TEST(ListCursors, TellNothingOfWhatOtherTenantsWroteAndOutliveARestart) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  std::string memory_before, sessions_before, memory_after, sessions_after, eve;
  {
    AgentdProcess agentd(multi_on(data_dir));
    Tenants t(agentd);
    eve = t.eve;
    for (const char* what : {"one", "two"}) remember(agentd, eve, "beta", what);
    chat(agentd, eve, "beta");
    chat(agentd, eve, "beta");
    memory_before = memory_cursor(agentd, eve);
    sessions_before = session_cursor(agentd, eve);
    for (int i = 0; i < 37; ++i) remember(agentd, t.alice, "acme", "busy " + std::to_string(i));
    for (int i = 0; i < 11; ++i) chat(agentd, t.alice, "acme");
    remember(agentd, eve, "beta", "three");
    chat(agentd, eve, "beta");
    memory_after = memory_cursor(agentd, eve);
    sessions_after = session_cursor(agentd, eve);
  }
  // In the clear they read m1...02 and m1...28, p2h and peg: 37 and 11 writes elsewhere.
  EXPECT_LT(same_digits(memory_before, memory_after, 2), 8) << memory_before << " " << memory_after;
  EXPECT_LT(same_digits(sessions_before, sessions_after, 1), 8)
      << sessions_before << " " << sessions_after;
  for (const std::string* cursor : {&memory_before, &sessions_before})
    EXPECT_EQ(cursor->find("000000"), std::string::npos) << *cursor;

  AgentdProcess again(multi_on(data_dir));
  const json memory =
      call(again, "GET", "/cells/beta/memory?layer=about_me&limit=5&cursor=" + memory_after, eve)
          .json();
  ASSERT_TRUE(memory["data"].is_array()) << memory.dump();
  ASSERT_EQ(memory["data"].size(), 2u) << "the older two, after a restart";
  EXPECT_EQ(memory["data"][0]["content"], "two");
  const auto sessions =
      call(again, "GET", "/cells/beta/sessions?limit=5&cursor=" + sessions_after, eve);
  ASSERT_EQ(sessions.status, 200) << sessions.body;
  EXPECT_EQ(sessions.json()["data"].size(), 2u);
}

}  // namespace
}  // namespace agentrt::test
