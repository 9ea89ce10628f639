// Who may call what: every admin route against every kind of caller, with the status
// each must get, and proof that a refused call changed nothing.
#include "tests/api/admin_client.h"

#include <gtest/gtest.h>

#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

struct Caller {
  std::string name;
  std::string token;
  int expected;  // status for every admin route; 0 = the route's success status
};

class AdminAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    admin = first_admin_token(agentd);
    ASSERT_FALSE(admin.empty()) << agentd.stderr_text();
    for (const char* cell : {"default", "other"})
      ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
    std::string plain = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
    std::string scoped =
        issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}, {"cell", "other"}})["token"];
    std::string cell_admin = issue_token(
        agentd, admin,
        {{"ttl", "1h"}, {"actor", "olga"}, {"cell", "other"}, {"admin", true}})["token"];
    json doomed = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "carol"}});
    ASSERT_EQ(
        call(agentd, "DELETE", "/admin/tokens/" + doomed["id"].get<std::string>(), admin).status,
        204);
    std::string expiring = issue_token(agentd, admin, {{"ttl", "1s"}, {"actor", "dave"}})["token"];
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    callers = {{"admin", admin, 0},
               {"non-admin", plain, 403},
               {"scoped to another cell", scoped, 403},
               {"admin scoped to another cell", cell_admin, 403},
               {"expired", expiring, 401},
               {"revoked", doomed["token"], 401},
               {"none", "", 401},
               {"truncated", admin.substr(0, admin.size() - 1), 401},
               {"other prefix", "sk-" + admin.substr(4), 401}};
  }

  TempDir dir;
  // Cells beyond default; GET /metrics an admin route (metrics_access_test.cpp has the
  // other modes).
  AgentdProcess agentd{with_args({"--mode", "multi", "--config",
                                  dir.write("config.json", R"({"metrics":{"access":"admin"}})")})};
  std::string admin;
  std::vector<Caller> callers;
  int serial = 0;
};

TEST_F(AdminAccess, EveryAdminRouteAgainstEveryCaller) {
  for (const Caller& caller : callers) {
    SCOPED_TRACE(caller.name);
    // Fresh targets per caller, made with the admin token, so deletes have something.
    std::string n = std::to_string(++serial);
    json victim = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "victim" + n}});
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "gone" + n}}).status, 201);
    json provider = {{"providers",
                      {{{"name", "doomed" + n},
                        {"type", "echo"},
                        {"models", {{{"id", "doomed-model-" + n}, {"context_window", 100}}}}}}}};
    ASSERT_EQ(call(agentd, "POST", "/admin/shared-providers", admin, provider).status, 200);
    // Unreachable on purpose: saving and listing need no server that answers.
    auto tool_server = [](const std::string& name) {
      return json{
          {"servers", {{{"name", name}, {"type", "mcp"}, {"url", "http://127.0.0.1:1/mcp"}}}}};
    };
    ASSERT_EQ(call(agentd, "POST", "/admin/tool-servers", admin, tool_server("doomed" + n)).status,
              200);

    struct Case {
      std::string method, path;
      json body;
      int success;
    };
    std::vector<Case> cases = {
        {"POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "x" + n}}, 201},
        {"GET", "/admin/tokens", nullptr, 200},
        {"DELETE", "/admin/tokens/" + victim["id"].get<std::string>(), nullptr, 204},
        {"POST", "/admin/cells", {{"id", "made" + n}}, 201},
        {"GET", "/admin/cells", nullptr, 200},
        {"GET", "/admin/cells/other", nullptr, 200},
        {"PATCH", "/admin/cells/other", {{"locale", "fr-FR"}}, 200},
        {"DELETE", "/admin/cells/gone" + n, nullptr, 204},
        {"POST",
         "/admin/shared-providers",
         {{"providers",
           {{{"name", "p" + n},
             {"type", "echo"},
             {"models", {{{"id", "model-" + n}, {"context_window", 100}}}}}}}},
         200},
        {"GET", "/admin/shared-providers", nullptr, 200},
        {"DELETE", "/admin/shared-providers/doomed" + n, nullptr, 204},
        {"POST", "/admin/tool-servers", tool_server("t" + n), 200},
        {"GET", "/admin/tool-servers", nullptr, 200},
        {"DELETE", "/admin/tool-servers/doomed" + n, nullptr, 204},
        {"GET", "/metrics", nullptr, 200},
    };
    for (const Case& c : cases) {
      auto response = call(agentd, c.method, c.path, caller.token, c.body);
      int expected = caller.expected ? caller.expected : c.success;
      EXPECT_EQ(response.status, expected) << c.method << " " << c.path << ": " << response.body;
      EXPECT_FALSE(response.header("X-Request-Id").empty());
      if (expected == 401) {
        EXPECT_EQ(response.header("WWW-Authenticate"), "Bearer");
        EXPECT_EQ(response.json()["error"]["code"], "unauthorized");
      }
      if (expected == 403) {
        EXPECT_EQ(response.json()["error"]["code"], "forbidden");
      }
    }
    // A cell route: any valid token of the cell may use it; the scoped token is 403.
    auto sessions = call(agentd, "GET", "/cells/default/sessions", caller.token);
    int cell_expected = caller.expected == 403 && caller.name == "non-admin" ? 200
                        : caller.expected                                    ? caller.expected
                                                                             : 200;
    EXPECT_EQ(sessions.status, cell_expected) << "GET /sessions: " << sessions.body;
    if (caller.expected) {  // refused: nothing changed
      EXPECT_EQ(call(agentd, "GET", "/admin/cells/made" + n, admin).status, 404);
      EXPECT_EQ(call(agentd, "GET", "/admin/cells/gone" + n, admin).status, 200);
      EXPECT_EQ(call(agentd, "GET", "/admin/cells/other", admin).json()["locale"], "en-US");
      auto tokens = call(agentd, "GET", "/admin/tokens?limit=500", admin).json()["data"];
      bool victim_listed = false;
      for (const auto& t : tokens) victim_listed |= t["id"] == victim["id"];
      EXPECT_TRUE(victim_listed);
      auto providers = call(agentd, "GET", "/admin/shared-providers", admin).body;
      EXPECT_NE(providers.find("doomed" + n), std::string::npos);
      EXPECT_EQ(providers.find("\"p" + n + "\""), std::string::npos);
      auto tool_servers = call(agentd, "GET", "/admin/tool-servers", admin).body;
      EXPECT_NE(tool_servers.find("\"doomed" + n + "\""), std::string::npos);
      EXPECT_EQ(tool_servers.find("\"t" + n + "\""), std::string::npos);
      // Put the admin's PATCH-able state back is not needed: nothing was changed.
    } else {
      ASSERT_EQ(call(agentd, "PATCH", "/admin/cells/other", admin, {{"locale", "en-US"}}).status,
                200);
    }
  }
}

// An admin token scoped to a cell is an admin there (agents, any actor's data) and
// nowhere else: the /admin routes lie in no cell, so it cannot issue itself a token of
// no cell, or of another cell, and leave its own.
TEST_F(AdminAccess, ACellsAdminIsAnAdminInThatCellAndNowhereElse) {
  std::string cell_admin = issue_token(
      agentd, admin,
      {{"ttl", "1h"}, {"actor", "olga"}, {"cell", "default"}, {"admin", true}})["token"];
  EXPECT_EQ(call(agentd, "POST", "/cells/default/agents", cell_admin, {{"name", "helper"}}).status,
            201);
  EXPECT_EQ(call(agentd, "GET", "/cells/default/sessions?actor=alice", cell_admin).status, 200);
  std::string before = call(agentd, "GET", "/admin/tokens?limit=500", admin).body;
  for (const json& body : {json{{"ttl", "1h"}, {"actor", "evil"}, {"admin", true}},
                           json{{"ttl", "1h"}, {"actor", "evil"}, {"cell", "other"}}}) {
    auto response = call(agentd, "POST", "/admin/tokens", cell_admin, body);
    EXPECT_EQ(response.status, 403) << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "forbidden");
    EXPECT_NE(response.json()["error"]["message"].get<std::string>().find("only in cell 'default'"),
              std::string::npos)
        << response.body;
  }
  EXPECT_EQ(call(agentd, "GET", "/admin/tokens?limit=500", admin).body, before);
  EXPECT_EQ(call(agentd, "DELETE", "/admin/cells/other", cell_admin).status, 403);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells/other", admin).status, 200);
}

TEST_F(AdminAccess, RevokedTokenStopsWorkingAtOnce) {
  json issued = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "erin"}, {"admin", true}});
  std::string token = issued["token"];
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", token).status, 200);
  ASSERT_EQ(
      call(agentd, "DELETE", "/admin/tokens/" + issued["id"].get<std::string>(), admin).status,
      204);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", token).status, 401);
  EXPECT_EQ(
      call(agentd, "DELETE", "/admin/tokens/" + issued["id"].get<std::string>(), admin).status,
      404);
}

// agentd reuses a token's verification for a while; a used token still ends at its
// expiry, not when that reuse would lapse.
TEST_F(AdminAccess, AUsedTokenStillExpiresOnTime) {
  const auto issued_at = std::chrono::steady_clock::now();
  std::string token = issue_token(agentd, admin, {{"ttl", "2s"}, {"actor", "fay"}})["token"];
  EXPECT_EQ(call(agentd, "GET", "/cells/default/sessions", token).status, 200);
  EXPECT_EQ(call(agentd, "GET", "/cells/default/sessions", token).status, 200);
  // It lives at least its ttl, and less than a second more (its expiry is a whole
  // second).
  std::this_thread::sleep_until(issued_at + std::chrono::milliseconds(1900));
  EXPECT_EQ(call(agentd, "GET", "/cells/default/sessions", token).status, 200);
  std::this_thread::sleep_until(issued_at + std::chrono::milliseconds(3200));
  auto refused = call(agentd, "GET", "/cells/default/sessions", token);
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.json()["error"]["message"], "token expired");
}

TEST_F(AdminAccess, HealthNeedsNoToken) {
  EXPECT_EQ(agentd.request("GET", "/health").status, 200);
}

}  // namespace
}  // namespace agentrt::test
