// GET /admin/audit's paging and filters, and its access: admin tokens only, and a
// refusal of it is itself an entry.
#include "tests/api/audit_client.h"

#include <gtest/gtest.h>

#include <set>

namespace agentrt::test {
namespace {

using nlohmann::json;

class AuditQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(admin.empty());
    ops = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "ops"}, {"admin", true}})["token"];
  }

  AgentdProcess agentd{with_args({"--mode", "multi"})};
  std::string admin = first_admin_token(agentd);
  std::string ops;
};

TEST_F(AuditQuery, PagesNewestFirstWithoutGapsOrRepeats) {
  for (int i = 0; i < 7; ++i)
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "c" + std::to_string(i)}}).status,
              201);
  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  do {
    auto page = call(
        agentd, "GET",
        "/admin/audit?action=cell.create&limit=3" + (cursor.empty() ? "" : "&cursor=" + cursor),
        admin);
    ASSERT_EQ(page.status, 200) << page.body;
    EXPECT_LE(page.json()["data"].size(), 3u);
    for (const json& entry : page.json()["data"]) seen.push_back(entry["target"]);
    cursor = page.json()["next_cursor"].is_string() ? page.json()["next_cursor"] : "";
    ++pages;
  } while (!cursor.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"c6", "c5", "c4", "c3", "c2", "c1", "c0"}));
  EXPECT_EQ(call(agentd, "GET", "/admin/audit?cursor=nonsense", admin).status, 400);
  EXPECT_EQ(call(agentd, "GET", "/admin/audit?limit=0", admin).status, 400);
}

TEST_F(AuditQuery, FiltersByActorActionAndTime) {
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "one"}}).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", ops, {{"id", "two"}}).status, 201);
  json provider = {
      {"providers",
       {{{"name", "p"}, {"type", "echo"}, {"models", {{{"id", "pm"}, {"context_window", 10}}}}}}}};
  ASSERT_EQ(call(agentd, "POST", "/admin/shared-providers", ops, provider).status, 200);
  ASSERT_EQ(call(agentd, "DELETE", "/admin/shared-providers/p", admin).status, 204);
  ASSERT_EQ(call(agentd, "GET", "/admin/cells", "").status, 401);

  auto actions_of = [&](const std::string& query) {
    std::vector<std::string> actions;
    for (const json& entry : audit_entries(agentd, admin, query))
      actions.push_back(entry["action"].get<std::string>() + ":" +
                        (entry["target"].is_string() ? entry["target"].get<std::string>() : ""));
    return actions;
  };
  EXPECT_EQ(actions_of("actor=ops"),
            (std::vector<std::string>{"provider.upsert:p", "cell.create:two"}));
  EXPECT_EQ(actions_of("action=provider."),
            (std::vector<std::string>{"provider.delete:p", "provider.upsert:p"}));
  EXPECT_EQ(actions_of("action=provider.delete"), (std::vector<std::string>{"provider.delete:p"}));
  EXPECT_EQ(actions_of("action=provider"), std::vector<std::string>{});  // exact, not a prefix
  EXPECT_EQ(actions_of("action=auth.&actor=ops"), std::vector<std::string>{});
  EXPECT_EQ(actions_of("action=cell.&actor=admin"), (std::vector<std::string>{"cell.create:one"}));
  EXPECT_EQ(actions_of("action=auth.refused").size(), 1u);

  // since is inclusive and until exclusive, against each entry's `at`.
  const std::vector<json> all = audit_entries(agentd, admin, "action=cell.create");
  ASSERT_EQ(all.size(), 2u);
  const std::string second_at = all[0]["at"];  // cell "two"
  const std::string first_at = all[1]["at"];
  EXPECT_EQ(actions_of("action=cell.&since=" + second_at).front(), "cell.create:two");
  for (const std::string& action : actions_of("until=" + second_at))
    EXPECT_NE(action, "cell.create:two");
  if (first_at != second_at) {
    EXPECT_EQ(actions_of("action=cell.&since=" + first_at + "&until=" + second_at),
              (std::vector<std::string>{"cell.create:one"}));
  }
  EXPECT_EQ(actions_of("since=2999-01-01T00:00:00Z"), std::vector<std::string>{});
  EXPECT_EQ(actions_of("until=2000-01-01T00:00:00Z"), std::vector<std::string>{});
  // A numeric offset is the same instant.
  EXPECT_EQ(actions_of("action=cell.&until=2999-01-01T01:00:00%2B01:00").size(), 2u);

  for (const char* bad : {"since=yesterday", "until=2026-13-01T00:00:00Z", "actor=", "action=",
                          "since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "order=asc"}) {
    auto refused = call(agentd, "GET", std::string("/admin/audit?") + bad, admin);
    EXPECT_EQ(refused.status, 400) << bad << ": " << refused.body;
  }
}

TEST_F(AuditQuery, ANonAdminIsRefusedAndTheRefusalIsRecorded) {
  std::string alice = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
  auto refused = call(agentd, "GET", "/admin/audit", alice);
  EXPECT_EQ(refused.status, 403);
  const std::vector<json> entries = audit_entries(agentd, admin, "action=auth.refused");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["status"], 403);
  EXPECT_EQ(entries[0]["result"], "forbidden");
  EXPECT_EQ(entries[0]["detail"], "not_admin");
  EXPECT_EQ(entries[0]["actor"], "alice");
  EXPECT_EQ(entries[0]["token_id"], token_id_of(alice));
  EXPECT_EQ(entries[0]["target"], "GET /admin/audit");
  EXPECT_EQ(entries[0]["peer"], "127.0.0.1");
}

}  // namespace
}  // namespace agentrt::test
