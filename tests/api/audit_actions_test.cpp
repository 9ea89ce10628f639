// The audit log's admin actions against the real agentd: each admin write leaves one
// entry with who, what and the result, a failed one too; no secret reaches an entry;
// the entries outlive a restart.
#include "tests/api/audit_client.h"
#include "tests/api/store_connection.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

constexpr const char* kInlineKey = "sk-audit-inline-7d3e9c1b5a";
constexpr const char* kHeaderSecret = "hdr-audit-secret-4f8a2c6e1d";

json keyed_provider(const std::string& name) {
  return {{"providers",
           {{{"name", name},
             {"type", "echo"},
             {"api_key_ref", {{"source", "inline"}, {"value", kInlineKey}}},
             {"models", {{{"id", name + "-model"}, {"context_window", 10}}}}}}}};
}

json secret_tool_server(const std::string& name) {
  return {{"servers",
           {{{"name", name},
             {"type", "mcp"},
             {"url", "http://127.0.0.1:1/mcp"},
             {"headers", {{"Authorization", {{"source", "inline"}, {"value", kHeaderSecret}}}}}}}}};
}

struct Expected {
  std::string action;
  std::string target;
  std::string cell;  // "" for none
  int status;
  std::string result;
};

class AuditActions : public ::testing::Test {
 protected:
  // Every admin write route once, and a few that fail; the entries they should leave,
  // oldest first.
  std::vector<Expected> act() {
    std::vector<Expected> expected;
    auto expect = [&](const HttpResponse& r, int status, Expected entry) {
      EXPECT_EQ(r.status, status) << entry.action << ": " << r.body;
      responses += r.body;
      expected.push_back(std::move(entry));
      return r;
    };
    expect(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}), 201,
           {"cell.create", "acme", "acme", 201, "ok"});
    expect(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}), 409,
           {"cell.create", "acme", "acme", 409, "conflict"});
    expect(call(agentd, "PATCH", "/admin/cells/acme", admin, {{"locale", "de-DE"}}), 200,
           {"cell.update", "acme", "acme", 200, "ok"});
    expect(call(agentd, "PUT", "/admin/cells/acme/limits", admin, {{"actor_runs", 4}}), 200,
           {"cell.limits", "acme", "acme", 200, "ok"});
    expect(call(agentd, "PUT", "/admin/cells/acme/limits", admin, {{"actor_runs", -1}}), 400,
           {"cell.limits", "acme", "acme", 400, "invalid_request"});
    auto issued = expect(call(agentd, "POST", "/admin/tokens", admin,
                              {{"ttl", "1h"}, {"actor", "alice"}, {"cell", "acme"}}),
                         201, {"token.create", "", "acme", 201, "ok"});
    minted = issued.json()["token"];
    expected.back().target = issued.json()["id"];
    expect(call(agentd, "DELETE", "/admin/tokens/" + issued.json()["id"].get<std::string>(), admin),
           204, {"token.revoke", issued.json()["id"], "", 204, "ok"});
    expect(call(agentd, "POST", "/admin/shared-providers", admin, keyed_provider("keyed")), 200,
           {"provider.upsert", "keyed", "", 200, "ok"});
    expect(call(agentd, "DELETE", "/admin/shared-providers/keyed", admin), 204,
           {"provider.delete", "keyed", "", 204, "ok"});
    expect(call(agentd, "DELETE", "/admin/shared-providers/keyed", admin), 404,
           {"provider.delete", "keyed", "", 404, "not_found"});
    expect(call(agentd, "POST", "/admin/tool-servers", admin, secret_tool_server("lookup")), 200,
           {"tool_server.upsert", "lookup", "", 200, "ok"});
    expect(call(agentd, "DELETE", "/admin/tool-servers/lookup", admin), 204,
           {"tool_server.delete", "lookup", "", 204, "ok"});
    auto agent = expect(call(agentd, "POST", "/cells/acme/agents", admin, {{"name", "helper"}}),
                        201, {"agent.create", "helper", "acme", 201, "ok"});
    const std::string agent_id = agent.json()["id"];
    expect(call(agentd, "POST", "/cells/acme/agents", admin, {{"name", 7}}), 400,
           {"agent.create", "", "acme", 400, "invalid_request"});
    expect(
        call(agentd, "PATCH", "/cells/acme/agents/" + agent_id, admin, {{"description", "helps"}}),
        200, {"agent.update", agent_id, "acme", 200, "ok"});
    expect(call(agentd, "DELETE", "/cells/acme/agents/" + agent_id, admin), 204,
           {"agent.delete", agent_id, "acme", 204, "ok"});
    expect(call(agentd, "DELETE", "/admin/cells/acme", admin), 204,
           {"cell.delete", "acme", "acme", 204, "ok"});
    return expected;
  }

  AgentdProcess agentd{with_args({"--mode", "multi"})};
  std::string admin = first_admin_token(agentd);
  std::string minted;
  std::string responses;
};

TEST_F(AuditActions, EachAdminActionIsRecordedOnceWithWhoWhatAndResult) {
  const std::vector<Expected> expected = act();
  // Reads are not actions.
  ASSERT_EQ(call(agentd, "GET", "/admin/cells", admin).status, 200);
  const std::vector<json> entries = audit_actions(agentd, admin);
  ASSERT_EQ(entries.size(), expected.size()) << json(entries).dump();
  for (size_t i = 0; i < expected.size(); ++i) {
    const Expected& want = expected[expected.size() - 1 - i];  // newest first
    const json& entry = entries[i];
    SCOPED_TRACE(entry.dump());
    EXPECT_EQ(entry["action"], want.action);
    if (want.target.empty())
      EXPECT_TRUE(entry["target"].is_null());
    else
      EXPECT_EQ(entry["target"], want.target);
    if (want.cell.empty())
      EXPECT_TRUE(entry["cell"].is_null());
    else
      EXPECT_EQ(entry["cell"], want.cell);
    EXPECT_EQ(entry["status"], want.status);
    EXPECT_EQ(entry["result"], want.result);
    EXPECT_EQ(entry["actor"], "admin");
    EXPECT_EQ(entry["token_id"], token_id_of(admin));
    EXPECT_EQ(entry["peer"], "127.0.0.1");
    EXPECT_EQ(entry["count"], 1);
    EXPECT_TRUE(entry["request_id"].is_string());
    // UTC to the millisecond.
    EXPECT_EQ(entry["at"].get<std::string>().size(), 24u);
    EXPECT_EQ(entry["at"].get<std::string>().back(), 'Z');
    if (i > 0) {
      EXPECT_LE(entry["at"].get<std::string>(), entries[i - 1]["at"].get<std::string>());
    }
  }
}

// The request id an entry carries is the one the response carried, so an entry leads
// to its access log line.
TEST_F(AuditActions, AnEntryCarriesItsRequestsId) {
  Headers headers = auth_headers(admin);
  headers.push_back({"X-Request-Id", "audit-trail-1"});
  ASSERT_EQ(agentd.request("POST", "/admin/cells", R"({"id":"traced"})", headers).status, 201);
  const std::vector<json> entries = audit_actions(agentd, admin);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["request_id"], "audit-trail-1");
}

TEST_F(AuditActions, NoSecretInAnyEntry) {
  act();
  // A token pasted where its id belongs, a key in a name: refused, and recorded.
  EXPECT_EQ(call(agentd, "DELETE", "/admin/tokens/" + minted, admin).status, 404);
  EXPECT_EQ(call(agentd, "DELETE", "/admin/shared-providers/" + admin, admin).status, 404);
  // A revoked token and the admin token gone wrong, refused.
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", minted).status, 401);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", admin + "x").status, 401);
  std::string bodies;
  const std::vector<json> entries = audit_entries(agentd, admin, "", &bodies);
  ASSERT_GT(entries.size(), 10u);
  for (const std::string& secret :
       {admin, minted, std::string(kInlineKey), std::string(kHeaderSecret), admin.substr(20),
        minted.substr(20)})
    EXPECT_EQ(bodies.find(secret), std::string::npos) << "the audit log holds a secret";
  EXPECT_EQ(entries[0]["action"], "auth.refused");  // the last, refusals written at the read
  bool pasted = false;
  for (const json& entry : entries)
    pasted = pasted || (entry["action"] == "token.revoke" && entry["status"] == 404 &&
                        entry["target"] == "art_[redacted]");
  EXPECT_TRUE(pasted) << "the pasted token is not recorded redacted";
}

// An action whose transaction rolls back (here: the agent's memory cannot go, its store
// held) leaves no entry of success, only its failure; sent again, it succeeds once.
TEST(AuditRollback, AnActionRolledBackIsRecordedAsItsFailureOnly) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json agent =
      call(agentd, "POST", "/agents", admin, {{"name", "helper"}, {"namespace", "ns1"}}).json();
  const std::string id = agent["id"];
  ASSERT_EQ(call(agentd, "POST", "/memory", admin,
                 {{"layer", "agent_memory"}, {"namespace", "ns1"}, {"content", "k"}})
                .status,
            201);
  {
    StoreConnection memory(agentd.data_dir() + "/memory.db");
    memory.exec("BEGIN IMMEDIATE");
    const HttpResponse refused = call(agentd, "DELETE", "/agents/" + id, admin);
    memory.exec("ROLLBACK");
    ASSERT_EQ(refused.status, 503) << refused.body;
  }
  ASSERT_EQ(call(agentd, "DELETE", "/agents/" + id, admin).status, 204);
  const std::vector<json> entries = audit_actions(agentd, admin);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["action"], "agent.delete");
  EXPECT_EQ(entries[0]["result"], "ok");
  EXPECT_EQ(entries[1]["action"], "agent.delete");
  EXPECT_EQ(entries[1]["status"], 503);
  EXPECT_EQ(entries[1]["result"], "unavailable");
  EXPECT_EQ(entries[1]["target"], id);
  EXPECT_EQ(entries[1]["cell"], "default");
  EXPECT_EQ(entries[2]["action"], "agent.create");
}

TEST(AuditRestart, EntriesSurviveARestart) {
  TempDir dir;
  AgentdOptions options = with_args({"--data-dir", dir.path()});
  options.private_data_dir = false;
  std::string admin;
  {
    AgentdProcess agentd(options);
    admin = first_admin_token(agentd);
    ASSERT_EQ(call(agentd, "PATCH", "/admin/cells/default", admin, {{"locale", "fr-FR"}}).status,
              200);
    // Held in memory, not yet read: written at the stop.
    ASSERT_EQ(call(agentd, "GET", "/admin/cells", "").status, 401);
    ASSERT_EQ(agentd.stop(), 0);
  }
  AgentdProcess agentd(options);
  const std::vector<json> entries = audit_entries(agentd, admin);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["action"], "auth.refused");
  EXPECT_EQ(entries[0]["detail"], "missing");
  EXPECT_EQ(entries[1]["action"], "cell.update");
  EXPECT_EQ(entries[1]["target"], "default");
}

}  // namespace
}  // namespace agentrt::test
