// The isolation matrix: every route docs/openapi.yaml lists, called by every kind of
// caller (the admin, the owner of the data, another actor of the same cell, a token of
// another cell, an expired token, a revoked one, none), each with the status it must
// get, and no refused or foreign caller's body naming the owner's data. A route the
// document gains without a place in the table below fails the test.
#include "tests/api/conversation_client.h"
#include "tests/openapi/documented_routes.h"

#include <gtest/gtest.h>

#include <regex>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

// Who a route admits, beyond the admin (who every route admits).
enum class Access {
  open,   // anyone, no token needed
  admin,  // admin tokens only
  cell,   // any token of the cell
  owned,  // the token of the actor whose data the path names; others of the cell: 404
};

struct Route {
  Access access;
  std::string query;  // appended to the path
  json body;          // null: no body
};

// Every documented route, by (method, path template).
std::map<std::pair<std::string, std::string>, Route> route_table() {
  const json chat = run_body("hello from the matrix");
  const json completion = {{"model", "echo"},
                           {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  return {
      {{"GET", "/health"}, {Access::open, "", nullptr}},
      {{"GET", "/metrics"}, {Access::open, "", nullptr}},
      {{"GET", "/admin/audit"}, {Access::admin, "?action=token.", nullptr}},
      {{"GET", "/admin/tokens"}, {Access::admin, "", nullptr}},
      {{"POST", "/admin/tokens"}, {Access::admin, "", {{"ttl", "1h"}, {"actor", "zed"}}}},
      {{"DELETE", "/admin/tokens/{id}"}, {Access::admin, "", nullptr}},
      {{"GET", "/admin/cells"}, {Access::admin, "", nullptr}},
      {{"POST", "/admin/cells"}, {Access::admin, "", {{"id", "initech"}}}},
      {{"GET", "/admin/cells/{id}"}, {Access::admin, "", nullptr}},
      {{"PATCH", "/admin/cells/{id}"}, {Access::admin, "", {{"locale", "fr-FR"}}}},
      {{"DELETE", "/admin/cells/{id}"}, {Access::admin, "", nullptr}},
      {{"GET", "/admin/cells/{id}/limits"}, {Access::admin, "", nullptr}},
      {{"PUT", "/admin/cells/{id}/limits"}, {Access::admin, "", {{"actor_runs", 4}}}},
      {{"GET", "/admin/shared-providers"}, {Access::admin, "", nullptr}},
      {{"POST", "/admin/shared-providers"}, {Access::admin, "", {{"providers", json::array()}}}},
      {{"DELETE", "/admin/shared-providers/{name}"}, {Access::admin, "", nullptr}},
      {{"GET", "/admin/tool-servers"}, {Access::admin, "", nullptr}},
      {{"POST", "/admin/tool-servers"}, {Access::admin, "", json::object()}},
      {{"DELETE", "/admin/tool-servers/{name}"}, {Access::admin, "", nullptr}},
      {{"POST", "/cells/{cellID}/run"}, {Access::cell, "", chat}},
      {{"POST", "/cells/{cellID}/chat"}, {Access::cell, "", chat}},
      {{"GET", "/cells/{cellID}/runs/{runID}/events"}, {Access::owned, "", nullptr}},
      {{"GET", "/cells/{cellID}/sessions"}, {Access::cell, "", nullptr}},
      {{"DELETE", "/cells/{cellID}/sessions/{sid}"}, {Access::owned, "", nullptr}},
      {{"GET", "/cells/{cellID}/sessions/{sid}/messages"}, {Access::owned, "", nullptr}},
      {{"POST", "/cells/{cellID}/sessions/{sid}/interrupt"}, {Access::owned, "", nullptr}},
      {{"GET", "/cells/{cellID}/memory"}, {Access::cell, "?layer=about_me", nullptr}},
      {{"POST", "/cells/{cellID}/memory"},
       {Access::cell, "", {{"layer", "about_me"}, {"content", "a note"}}}},
      {{"GET", "/cells/{cellID}/memory/counts"}, {Access::cell, "", nullptr}},
      {{"POST", "/cells/{cellID}/memory/search"}, {Access::cell, "", {{"query", "private"}}}},
      {{"DELETE", "/cells/{cellID}/memory/layer"}, {Access::cell, "?layer=consensus", nullptr}},
      {{"GET", "/cells/{cellID}/memory/{id}"}, {Access::owned, "", nullptr}},
      {{"DELETE", "/cells/{cellID}/memory/{id}"}, {Access::owned, "", nullptr}},
      {{"GET", "/cells/{cellID}/agents"}, {Access::cell, "", nullptr}},
      {{"POST", "/cells/{cellID}/agents"}, {Access::admin, "", {{"name", "matrix"}}}},
      {{"GET", "/cells/{cellID}/agents/{aid}"}, {Access::cell, "", nullptr}},
      {{"PATCH", "/cells/{cellID}/agents/{aid}"},
       {Access::admin, "", {{"system_prompt", "be brief"}}}},
      {{"DELETE", "/cells/{cellID}/agents/{aid}"}, {Access::admin, "", nullptr}},
      {{"POST", "/cells/{cellID}/v1/chat/completions"}, {Access::cell, "", completion}},
      {{"POST", "/cells/{cellID}/v1/responses"},
       {Access::cell, "", {{"model", "echo"}, {"input", "hi"}}}},
      {{"GET", "/cells/{cellID}/v1/responses/{id}"}, {Access::owned, "", nullptr}},
      {{"POST", "/cells/{cellID}/v1/responses/{id}/cancel"}, {Access::owned, "", nullptr}},
      {{"GET", "/cells/{cellID}/v1/models"}, {Access::cell, "", nullptr}},
      {{"GET", "/cells/{cellID}/v1/models/{model}"}, {Access::cell, "", nullptr}},
  };
}

struct Caller {
  std::string name;
  std::string token;
  enum Kind { admin, owner, neighbour, other_cell, refused } kind;
};

// The status a caller must get, or 0 when any status of the route's own (not 401, 403,
// or a 5xx; for the owner not 404 either) will do.
int expected_status(const Route& route, const Caller& caller) {
  if (route.access == Access::open) return 200;
  switch (caller.kind) {
    case Caller::refused:
      return 401;
    case Caller::admin:
      return 0;
    case Caller::other_cell:
      return 403;
    case Caller::owner:
    case Caller::neighbour:
      if (route.access == Access::admin) return 403;
      if (route.access == Access::owned && caller.kind == Caller::neighbour) return 404;
      return 0;
  }
  return 0;
}

class IsolationMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    admin = first_admin_token(agentd);
    for (const char* cell : {"acme", "globex", "doomed"})
      ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
    owner = token({{"actor", "alice"}, {"cell", "acme"}});
    neighbour = token({{"actor", "bob"}, {"cell", "acme"}});
    other_cell = token({{"actor", "carol"}, {"cell", "globex"}});
    json revoked_token =
        issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}, {"cell", "acme"}});
    revoked = revoked_token["token"];
    ASSERT_EQ(
        call(agentd, "DELETE", "/admin/tokens/" + revoked_token["id"].get<std::string>(), admin)
            .status,
        204);
    expired = token({{"actor", "alice"}, {"cell", "acme"}, {"ttl", "1s"}});
    spare_token_id = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "yan"}})["id"];
    make_owners_data();
    // A token lives at least its ttl: it expires at the second after issue plus the ttl.
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  }

  std::string token(json body) {
    if (!body.contains("ttl")) body["ttl"] = "1h";
    return issue_token(agentd, admin, body)["token"];
  }

  // alice's session, run, private memory and response, and an agent of the cell: the
  // words each path parameter stands for, and the markers no other caller may see.
  void make_owners_data() {
    auto chat = call(agentd, "POST", "/cells/acme/chat", owner,
                     run_body("alice-words-5e1", {{"session_id", "sess-alice-5e1"}}));
    ASSERT_EQ(chat.status, 200) << chat.body;
    auto memory = call(agentd, "POST", "/cells/acme/memory", owner,
                       {{"layer", "about_me"}, {"content", "alice-private-5e1"}});
    ASSERT_EQ(memory.status, 201) << memory.body;
    auto response = call(agentd, "POST", "/cells/acme/v1/responses", owner,
                         {{"model", "echo"}, {"input", "alice-response-5e1"}});
    ASSERT_EQ(response.status, 200) << response.body;
    auto agent = call(agentd, "POST", "/cells/acme/agents", admin, {{"name", "helper"}});
    ASSERT_EQ(agent.status, 201) << agent.body;
    params = {
        {"cellID", "acme"},          {"sid", "sess-alice-5e1"}, {"runID", chat.json()["run_id"]},
        {"aid", agent.json()["id"]}, {"model", "echo"},         {"name", "nothing-here"}};
    memory_id = memory.json()["id"];
    response_id = response.json()["id"];
    markers = {"sess-alice-5e1", "alice-words-5e1", "alice-private-5e1", "alice-response-5e1",
               params["runID"],  memory_id,         response_id};
  }

  // The template with each {parameter} replaced; {id} by what the path holds there.
  std::string concrete(const std::string& path) const {
    std::string id = memory_id;
    if (path.find("/responses/") != std::string::npos) id = response_id;
    if (path.rfind("/admin/tokens/", 0) == 0) id = spare_token_id;
    if (path.rfind("/admin/cells/", 0) == 0) id = "doomed";
    std::string out;
    std::regex param("\\{([A-Za-z]+)\\}");
    std::sregex_iterator it(path.begin(), path.end(), param), end;
    size_t at = 0;
    for (; it != end; ++it) {
      out += path.substr(at, it->position() - at);
      const std::string name = (*it)[1];
      out += name == "id" ? id : params.at(name);
      at = it->position() + it->length();
    }
    return out + path.substr(at);
  }

  AgentdProcess agentd{with_args({"--mode", "multi"})};
  std::string admin, owner, neighbour, other_cell, revoked, expired, memory_id, response_id;
  std::string spare_token_id;
  std::map<std::string, std::string> params;
  std::vector<std::string> markers;
};

// 0: leaves the data as it was; 1: stops what runs; 2: deletes.
int damage(const std::string& method, const std::string& path) {
  if (method == "DELETE") return 2;
  return path.find("/interrupt") != std::string::npos || path.find("/cancel") != std::string::npos;
}

TEST_F(IsolationMatrix, EveryRouteRefusesWhomItMustAndLeaksNothing) {
  const RouteSet routes = documented_routes(AGENTRT_OPENAPI_PATH);
  ASSERT_GE(routes.size(), 40u) << "cannot read " << AGENTRT_OPENAPI_PATH;
  const auto table = route_table();
  for (const auto& route : routes)
    ASSERT_TRUE(table.count(route))
        << route.first << " " << route.second << " is documented but has no place in the matrix";
  // Refused and foreign callers first, the owner next, the admin last; in each, the
  // routes that stop runs after those that leave all as it was, and deletions last, so
  // that each call finds the data in place.
  const std::vector<Caller> callers = {{"none", "", Caller::refused},
                                       {"expired", expired, Caller::refused},
                                       {"revoked", revoked, Caller::refused},
                                       {"another cell", other_cell, Caller::other_cell},
                                       {"neighbour", neighbour, Caller::neighbour},
                                       {"owner", owner, Caller::owner},
                                       {"admin", admin, Caller::admin}};
  int calls = 0;
  for (const Caller& caller : callers) {
    for (int level : {0, 1, 2}) {
      for (const auto& [key, route] : table) {
        const auto& [method, path] = key;
        if (damage(method, path) != level) continue;
        const std::string target = concrete(path) + route.query;
        auto response = call(agentd, method, target, caller.token, route.body);
        ++calls;
        const std::string where = caller.name + ": " + method + " " + target + " -> " +
                                  std::to_string(response.status) + " " + response.body;
        const int expected = expected_status(route, caller);
        if (expected != 0) {
          EXPECT_EQ(response.status, expected) << where;
        } else {
          EXPECT_LT(response.status, 500) << where;
          EXPECT_NE(response.status, 401) << where;
          EXPECT_NE(response.status, 403) << where;
          if (caller.kind == Caller::owner) {
            EXPECT_NE(response.status, 404) << where;
          }
        }
        if (caller.kind == Caller::owner || caller.kind == Caller::admin) continue;
        for (const std::string& marker : markers) {
          if (target.find(marker) != std::string::npos) continue;  // the caller sent it
          EXPECT_EQ(response.body.find(marker), std::string::npos)
              << where << "\nnames the owner's " << marker;
        }
      }
    }
  }
  EXPECT_EQ(calls, static_cast<int>(table.size() * callers.size()));
}

}  // namespace
}  // namespace agentrt::test
