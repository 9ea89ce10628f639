// Sessions belong to their actor, runs happen in their cell, and every cell route works
// in both modes.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

TEST(ConversationAccess, ANonAdminActsAsItselfAndSeesOnlyItsSessions) {
  AgentdProcess agentd;
  std::string admin = first_admin_token(agentd);
  std::string alice = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
  std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];

  // alice names another actor: ignored, the session is hers.
  json answer = call(agentd, "POST", "/chat", alice,
                     run_body("mine", {{"actor", "bob"}, {"session_id", "a1"}}))
                    .json();
  ASSERT_EQ(answer["session_id"], "a1");
  auto listed = call(agentd, "GET", "/sessions", alice).json()["data"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["actor"], "alice");
  EXPECT_TRUE(call(agentd, "GET", "/sessions?actor=alice", bob).json()["data"].empty());

  // For bob the session does not exist, whatever he tries.
  EXPECT_EQ(call(agentd, "GET", "/sessions/a1/messages", bob).status, 404);
  EXPECT_EQ(call(agentd, "POST", "/sessions/a1/interrupt", bob).status, 404);
  EXPECT_EQ(call(agentd, "DELETE", "/sessions/a1", bob).status, 404);
  EXPECT_EQ(call(agentd, "POST", "/chat", bob, run_body("hijack", {{"session_id", "a1"}})).status,
            404);
  EXPECT_EQ(
      call(agentd, "GET", "/runs/" + answer["run_id"].get<std::string>() + "/events", bob).status,
      404);
  EXPECT_EQ(call(agentd, "GET", "/sessions/a1/messages", alice).json()["data"].size(), 2u);

  // The admin sees everyone's, or one actor's, and continues alice's session as her.
  EXPECT_EQ(call(agentd, "GET", "/sessions", admin).json()["data"].size(), 1u);
  EXPECT_EQ(call(agentd, "GET", "/sessions?actor=bob", admin).json()["data"].size(), 0u);
  EXPECT_EQ(
      call(agentd, "POST", "/chat", admin, run_body("admin here", {{"session_id", "a1"}})).status,
      200);
  EXPECT_EQ(call(agentd, "GET", "/sessions/a1/messages", alice).json()["data"].size(), 4u);
}

// agentd keeps a continued session's owner in memory with its history
// (history_cache.h): through many turns, a deletion and a new owner of the same id,
// each actor still continues only its own session.
TEST(ConversationAccess, ASessionsOwnerHoldsThroughItsTurnsAndGoesWithIt) {
  AgentdProcess agentd;
  std::string admin = first_admin_token(agentd);
  std::string alice = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
  std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  const json s1 = {{"session_id", "s1"}};
  for (int turn = 0; turn < 3; ++turn)
    ASSERT_EQ(call(agentd, "POST", "/chat", alice, run_body(std::string(400, 'a'), s1)).status,
              200);
  EXPECT_EQ(call(agentd, "POST", "/chat", bob, run_body("hijack", s1)).status, 404);
  EXPECT_EQ(call(agentd, "POST", "/chat", admin,
                 run_body("as bob", {{"session_id", "s1"}, {"actor", "bob"}}))
                .status,
            404);
  json as_owner = call(agentd, "POST", "/chat", admin, run_body("as alice", s1)).json();
  EXPECT_GE(as_owner["usage"]["input_tokens"].get<int>(), 600) << as_owner.dump();
  ASSERT_EQ(call(agentd, "DELETE", "/sessions/s1", alice).status, 204);

  ASSERT_EQ(call(agentd, "POST", "/chat", bob, run_body("mine now", s1)).status, 200);
  EXPECT_EQ(call(agentd, "POST", "/chat", alice, run_body("still mine?", s1)).status, 404);
  json next = call(agentd, "POST", "/chat", bob, run_body("and again", s1)).json();
  EXPECT_LT(next["usage"]["input_tokens"].get<int>(), 50) << "alice's turns came along";
  EXPECT_EQ(call(agentd, "POST", "/chat", alice, run_body("and now?", s1)).status, 404);
  auto listed = call(agentd, "GET", "/sessions", admin).json()["data"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["actor"], "bob");
}

TEST(ConversationAccess, MultiCellModeScopesRunsToTheirCell) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "globex"}}).status, 201);
  std::string scoped =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "carol"}, {"cell", "acme"}})["token"];

  auto answer = call(agentd, "POST", "/cells/acme/chat", scoped, run_body("in acme"));
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(call(agentd, "POST", "/cells/globex/chat", scoped, run_body("elsewhere")).status, 403);
  EXPECT_EQ(call(agentd, "POST", "/cells/nowhere/chat", admin, run_body("x")).status, 404);
  // A scoped token learns nothing of which other cells exist (docs/openapi.yaml).
  EXPECT_EQ(call(agentd, "POST", "/cells/nowhere/chat", scoped, run_body("x")).status, 403);
  EXPECT_EQ(call(agentd, "GET", "/cells/nowhere/sessions", scoped).status, 403);
  EXPECT_EQ(call(agentd, "POST", "/chat", admin, run_body("x")).status, 404)
      << "no unprefixed routes";
  std::string session = answer.json()["session_id"];
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions/" + session + "/messages", scoped).status,
            200);
  EXPECT_EQ(call(agentd, "GET", "/cells/globex/sessions/" + session + "/messages", admin).status,
            404);
  auto stream = open_run(agentd, scoped, run_body("streamed"), "/cells/acme/run");
  EXPECT_EQ(stream->rest().back()["type"], "done");

  // Deleting the cell takes its sessions and its tokens along: a cell created again
  // under the same id is a new tenant, which the old tokens must not reach.
  json elsewhere =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "dan"}, {"cell", "globex"}});
  ASSERT_EQ(call(agentd, "DELETE", "/admin/cells/acme", admin).status, 204);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  EXPECT_TRUE(call(agentd, "GET", "/cells/acme/sessions", admin).json()["data"].empty());
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions", scoped).status, 401);
  EXPECT_EQ(call(agentd, "GET", "/cells/globex/sessions", elsewhere["token"]).status, 200)
      << "another cell's token is untouched";
  const json listed = call(agentd, "GET", "/admin/tokens?limit=500", admin).json();
  for (const json& token : listed["data"])
    EXPECT_NE(token["cell"], "acme") << "a revoked token is still listed";
}

TEST(ConversationAccess, CellRoutesNeedAToken) {
  AgentdProcess agentd;
  auto response = agentd.request("GET", "/sessions");
  EXPECT_EQ(response.status, 401);
  EXPECT_EQ(response.header("WWW-Authenticate"), "Bearer");
  auto run =
      agentd.request("POST", "/run", run_body("x").dump(), {{"Content-Type", "application/json"}});
  EXPECT_EQ(run.status, 401);
}

}  // namespace
}  // namespace agentrt::test
