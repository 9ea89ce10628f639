// Refused authentications in the audit log: every kind recorded, none with its token;
// refusals alike coalesced; a flood bounded in rows; and the retention rules, which are
// the only deletions.
#include "tests/api/audit_client.h"
#include "tests/api/store_connection.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

// agentd in multi mode with the `audit` section `audit` (the refusal window long
// enough that only reads and the stop write refusals, so that counts do not depend on
// when a window ends), on `dir` when given.
AgentdOptions audited(TempDir& config_dir, const json& audit, const std::string& dir = "") {
  AgentdOptions options =
      with_args({"--mode", "multi", "--config",
                 config_dir.write("config.json", json{{"audit", audit}}.dump())});
  if (!dir.empty()) {
    options.private_data_dir = false;
    options.args.insert(options.args.end(), {"--data-dir", dir});
  }
  return options;
}

// A token of the bundled shape that no agentd issued: its id is `id`.
std::string unknown_token(int n) {
  char id[17];
  std::snprintf(id, sizeof id, "%016x", n);
  return std::string("art_") + id + std::string(43, 'Q');
}

json with_detail(const std::vector<json>& entries, const std::string& detail) {
  for (const json& entry : entries)
    if (entry["detail"] == detail) return entry;
  return nullptr;
}

TEST(AuditRefusals, EveryKindIsRecordedWithoutItsToken) {
  TempDir config;
  AgentdProcess agentd(audited(config, {{"refusal_window_ms", 600000}}));
  const std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "other"}}).status, 201);
  const std::string expiring =
      issue_token(agentd, admin, {{"ttl", "1s"}, {"actor", "eve"}})["token"];
  const json revoked = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "rob"}});
  ASSERT_EQ(
      call(agentd, "DELETE", "/admin/tokens/" + revoked["id"].get<std::string>(), admin).status,
      204);
  const std::string scoped =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "sam"}, {"cell", "other"}})["token"];
  const std::string plain = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "pat"}})["token"];
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // past the 1 s ttl

  const std::string unknown = unknown_token(0xbeef);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", "").status, 401);
  EXPECT_EQ(agentd.request("GET", "/admin/cells", "", {{"Authorization", "Bearer a%b"}}).status,
            401);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", unknown).status, 401);
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions", expiring).status, 401);
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions", revoked["token"]).status, 401);
  EXPECT_EQ(call(agentd, "POST", "/admin/cells", plain, {{"id", "x"}}).status, 403);
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions", scoped).status, 403);

  std::string bodies;
  const std::vector<json> entries = audit_entries(agentd, admin, "action=auth.refused", &bodies);
  EXPECT_EQ(entries.size(), 7u) << bodies;
  struct Want {
    const char* detail;
    int status;
    json token_id;
    json actor;
    const char* target;
  } const wanted[] = {
      {"missing", 401, nullptr, nullptr, "GET /admin/cells"},
      {"malformed", 401, nullptr, nullptr, "GET /admin/cells"},
      {"unknown", 401, "000000000000beef", nullptr, "GET /admin/cells"},
      {"expired", 401, token_id_of(expiring), nullptr, "GET /cells/{cellID}/sessions"},
      {"revoked", 401, revoked["id"], nullptr, "GET /cells/{cellID}/sessions"},
      {"not_admin", 403, token_id_of(plain), "pat", "POST /admin/cells"},
      {"cell_scope", 403, token_id_of(scoped), "sam", "GET /cells/{cellID}/sessions"},
  };
  for (const Want& want : wanted) {
    const json entry = with_detail(entries, want.detail);
    ASSERT_TRUE(entry.is_object()) << want.detail << " is not recorded: " << bodies;
    EXPECT_EQ(entry["status"], want.status) << want.detail;
    EXPECT_EQ(entry["result"], want.status == 401 ? "unauthorized" : "forbidden");
    EXPECT_EQ(entry["token_id"], want.token_id) << want.detail;
    EXPECT_EQ(entry["actor"], want.actor) << want.detail;
    EXPECT_EQ(entry["target"], want.target) << want.detail;
    EXPECT_EQ(entry["peer"], "127.0.0.1");
    EXPECT_EQ(entry["count"], 1);
  }
  EXPECT_EQ(with_detail(entries, "expired")["cell"], "acme");
  for (const std::string& token :
       {unknown, expiring, revoked["token"].get<std::string>(), scoped, plain, admin})
    EXPECT_EQ(bodies.find(token.substr(20)), std::string::npos) << "a token's secret is recorded";
}

TEST(AuditRefusals, RefusalsAlikeAreOneEntryWithACount) {
  TempDir config;
  AgentdProcess agentd(audited(config, {{"refusal_window_ms", 600000}}));
  const std::string admin = first_admin_token(agentd);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(call(agentd, "GET", "/admin/cells", "").status, 401);
  EXPECT_EQ(call(agentd, "GET", "/admin/tokens", "").status, 401);  // another route
  const std::vector<json> entries = audit_entries(agentd, admin, "action=auth.");
  ASSERT_EQ(entries.size(), 2u);
  const json& cells = entries[0]["target"] == "GET /admin/cells" ? entries[0] : entries[1];
  EXPECT_EQ(cells["count"], 5);
  EXPECT_TRUE(cells["last_at"].is_string());
  EXPECT_GE(cells["last_at"].get<std::string>(), cells["at"].get<std::string>());
  // The next window starts afresh.
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", "").status, 401);
  EXPECT_EQ(audit_entries(agentd, admin, "action=auth.refused").size(), 3u);
}

// Each window writes at most max_refusal_keys entries and one per status for the rest,
// and the log keeps at most max_refusals of them, the admin actions apart.
TEST(AuditRefusals, AFloodIsBoundedInRowsAndKeepsTheAdminActions) {
  TempDir config;
  AgentdProcess agentd(audited(
      config, {{"refusal_window_ms", 600000}, {"max_refusal_keys", 4}, {"max_refusals", 10}}));
  const std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "kept"}}).status, 201);
  constexpr int kRounds = 4, kPerRound = 150;
  int64_t counted = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kPerRound; ++i) {
      const std::string token = unknown_token(round * kPerRound + i);
      ASSERT_EQ(call(agentd, "GET", "/admin/cells", token).status, 401);
    }
    const std::vector<json> window = audit_entries(agentd, admin, "action=auth.refused");
    ASSERT_LE(window.size(), 10u);
    // This window's, the newest: 4 apart and the one that counts the rest.
    ASSERT_GE(window.size(), 5u);
    EXPECT_EQ(window[0]["detail"], "coalesced");
    EXPECT_TRUE(window[0]["token_id"].is_null());
    EXPECT_TRUE(window[0]["peer"].is_null());
    int64_t in_window = 0;
    for (size_t i = 0; i < 5; ++i) in_window += window[i]["count"].get<int64_t>();
    for (size_t i = 1; i < 5; ++i) EXPECT_EQ(window[i]["count"], 1);
    EXPECT_EQ(in_window, kPerRound) << "round " << round;
    counted += in_window;
  }
  EXPECT_EQ(counted, kRounds * kPerRound);
  const std::vector<json> actions = audit_actions(agentd, admin);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["target"], "kept");
  StoreConnection store(agentd.data_dir() + "/state.db");
  EXPECT_EQ(store.count("SELECT count(*) FROM audit_log WHERE kind = 'refusal'"), 10);
}

TEST(AuditRetention, MaxEntriesKeepsTheNewestAdminActions) {
  TempDir config;
  AgentdProcess agentd(audited(config, {{"max_entries", 3}}));
  const std::string admin = first_admin_token(agentd);
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "c" + std::to_string(i)}}).status,
              201);
  const std::vector<json> actions = audit_actions(agentd, admin);
  ASSERT_EQ(actions.size(), 3u);
  EXPECT_EQ(actions[0]["target"], "c5");
  EXPECT_EQ(actions[2]["target"], "c3");
}

// Entries past retention_days go at the next start; 0 keeps them.
TEST(AuditRetention, OldEntriesAreDeletedAtStart) {
  TempDir config, data;
  const std::string dir = data.path() + "/agentrt";
  std::string admin;
  auto plant_old_entry = [&] {
    StoreConnection store(dir + "/state.db");
    store.exec(
        "INSERT INTO audit_log(kind, at_ms, action, status) VALUES ('action', 86400000, "
        "'cell.create', 201); UPDATE audit_counts SET entries = entries + 1 WHERE kind = "
        "'action'");
  };
  {
    AgentdProcess agentd(audited(config, {{"retention_days", 0}}, dir));
    admin = first_admin_token(agentd);
    ASSERT_EQ(agentd.stop(), 0);
  }
  plant_old_entry();
  {
    AgentdProcess agentd(audited(config, {{"retention_days", 0}}, dir));
    EXPECT_EQ(audit_actions(agentd, admin).size(), 1u);  // kept whatever its age
    ASSERT_EQ(agentd.stop(), 0);
  }
  {
    AgentdProcess agentd(audited(config, {{"retention_days", 30}}, dir));
    EXPECT_EQ(audit_actions(agentd, admin).size(), 0u);
  }
}

TEST(AuditConfig, AnUnknownOrOutOfRangeKeyIsRefused) {
  TempDir config;
  const CommandResult unknown = run_agentd(
      {"check-config", "--config", config.write("unknown.json", R"({"audit":{"retention":1}})")});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("audit.retention"), std::string::npos) << unknown.err;
  const CommandResult zero = run_agentd(
      {"check-config", "--config", config.write("zero.json", R"({"audit":{"max_entries":0}})")});
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_NE(zero.err.find("audit.max_entries"), std::string::npos) << zero.err;
}

}  // namespace
}  // namespace agentrt::test
