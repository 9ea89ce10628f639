// Layered memory over HTTP: the layer rules, bad input, search, and the four rules of
// counts checked as a property over a random mix of entries.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace agentrt::test {
namespace {

using nlohmann::json;

const std::vector<std::string> kLayers = {"environment", "consensus", "about_me", "agent_memory",
                                          "session",     "working",   "unknown"};
const std::set<std::string> kShared = {"environment", "consensus"};

std::string query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) out += (out.empty() ? "?" : "&") + key + "=" + value;
  return out;
}

// Every entry of a layer, following next_cursor with a small page size.
std::vector<json> list_all(const AgentdProcess& agentd, const std::string& token,
                           std::vector<std::pair<std::string, std::string>> params) {
  std::vector<json> all;
  std::string cursor;
  params.push_back({"limit", "7"});
  for (int page = 0; page < 1000; ++page) {
    auto p = params;
    if (!cursor.empty()) p.push_back({"cursor", cursor});
    auto response = call(agentd, "GET", "/memory" + query(p), token);
    EXPECT_EQ(response.status, 200) << response.body;
    for (const auto& e : response.json()["data"]) all.push_back(e);
    if (response.json()["next_cursor"].is_null()) break;
    cursor = response.json()["next_cursor"];
  }
  return all;
}

class Memory : public ::testing::Test {
 protected:
  void SetUp() override {
    admin = first_admin_token(agentd);
    alice = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
    bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  }
  json save(const std::string& token, json body, int expected = 201) {
    auto response = call(agentd, "POST", "/memory", token, body);
    EXPECT_EQ(response.status, expected) << body.dump() << " -> " << response.body;
    return response.json();
  }
  AgentdProcess agentd;
  std::string admin, alice, bob;
};

TEST_F(Memory, SaveGetListDelete) {
  json entry =
      save(alice, {{"layer", "about_me"}, {"content", "likes tea"}, {"metadata", {{"k", 1}}}});
  EXPECT_EQ(entry["actor"], "alice");
  EXPECT_EQ(entry["layer"], "about_me");
  EXPECT_EQ(entry["metadata"]["k"], 1);
  for (const char* key : {"id", "content", "namespace", "session_id", "created_at", "updated_at"})
    EXPECT_TRUE(entry.contains(key)) << key;
  std::string id = entry["id"];
  EXPECT_EQ(call(agentd, "GET", "/memory/" + id, alice).json(), entry);
  EXPECT_EQ(call(agentd, "GET", "/memory/" + id, bob).status, 404) << "another actor's entry";
  EXPECT_EQ(call(agentd, "DELETE", "/memory/" + id, bob).status, 404);
  EXPECT_EQ(call(agentd, "GET", "/memory/" + id, admin).status, 200);
  // The lists' filters name no entry: taken, they would turn it into a 404; like any
  // parameter a route does not take, they are 400.
  auto filtered = call(agentd, "GET", "/memory/" + id + "?namespace=x", alice);
  EXPECT_EQ(filtered.status, 400);
  EXPECT_EQ(filtered.json()["error"]["message"],
            "unknown query parameter \"namespace\" (this route takes actor)");
  EXPECT_EQ(list_all(agentd, alice, {{"layer", "about_me"}}).size(), 1u);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/" + id, alice).status, 204);
  EXPECT_EQ(call(agentd, "GET", "/memory/" + id, alice).status, 404);
}

TEST_F(Memory, UnknownLayersLandInUnknownAndSharedLayersAreShared) {
  json odd = save(alice, {{"layer", "dreams"}, {"content", "flying"}});
  EXPECT_EQ(odd["layer"], "unknown");
  EXPECT_EQ(odd["requested_layer"], "dreams");
  json named = save(alice, {{"layer", "unknown"}, {"content", "where?"}});
  EXPECT_EQ(named["layer"], "unknown");
  EXPECT_EQ(named["requested_layer"], "unknown") << "unknown is not one of the six either";
  save(alice, {{"layer", "consensus"}, {"content", "we ship on fridays"}});
  save(bob, {{"layer", "consensus"}, {"content", "we test first"}});
  EXPECT_EQ(list_all(agentd, alice, {{"layer", "consensus"}}).size(), 2u);
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", bob).json()["consensus"], 2);
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", bob).json()["unknown"], 0);
  save(alice, {{"layer", "agent_memory"}, {"namespace", "helper"}, {"content", "be brief"}});
  EXPECT_EQ(list_all(agentd, alice, {{"layer", "agent_memory"}, {"namespace", "helper"}}).size(),
            1u);
  EXPECT_EQ(list_all(agentd, alice, {{"layer", "agent_memory"}, {"namespace", "other"}}).size(),
            0u);
}

// Every actor reads the shared layers whole but deletes there only what it wrote, or any
// actor could wipe the cell's shared knowledge and the sensors' entries; an admin token
// deletes any entry.
TEST_F(Memory, InTheSharedLayersAnActorDeletesOnlyWhatItWrote) {
  std::string sensor = save(admin, {{"layer", "environment"}, {"content", "sensor: 21C"}})["id"];
  std::string alices = save(alice, {{"layer", "consensus"}, {"content", "alice's"}})["id"];
  save(bob, {{"layer", "consensus"}, {"content", "bob's"}});
  std::string bobs = save(bob, {{"layer", "consensus"}, {"content", "bob's too"}})["id"];
  HttpResponse refused = call(agentd, "DELETE", "/memory/" + alices, bob);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(call(agentd, "DELETE", "/memory/" + sensor, bob).status, 403);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/layer?layer=environment", bob).json(),
            json({{"deleted", 0}}));
  EXPECT_EQ(call(agentd, "DELETE", "/memory/" + bobs, bob).status, 204);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/layer?layer=consensus", bob).json(),
            json({{"deleted", 1}}));
  EXPECT_EQ(call(agentd, "GET", "/memory/" + alices, bob).status, 200);
  EXPECT_EQ(call(agentd, "GET", "/memory/" + sensor, bob).status, 200);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/" + alices, admin).status, 204);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/layer?layer=environment", admin).json(),
            json({{"deleted", 1}}));
}

TEST_F(Memory, BadInputGetsTheDocumentedError) {
  std::string before = call(agentd, "GET", "/memory/counts", admin).body;
  save(alice, {{"layer", "about_me"}, {"content", ""}}, 400);
  save(alice, {{"layer", "about_me"}, {"content", 5}}, 400);
  save(alice, {{"layer", "about_me"}}, 400);
  save(alice, {{"content", "x"}}, 400);
  save(alice, {{"layer", "about_me"}, {"content", "x"}, {"metadata", "nope"}}, 400);
  save(alice, {{"layer", "about_me"}, {"content", "x"}, {"metadata", json::array()}}, 400);
  save(alice, {{"layer", "agent_memory"}, {"content", "x"}}, 400);
  save(alice, {{"layer", "session"}, {"content", "x"}}, 400);
  // Names are bounded, and a namespace is one an agent could have.
  for (const char* layer : {"about_me", "agent_memory"}) {
    save(alice, {{"layer", layer}, {"content", "x"}, {"namespace", ""}}, 400);
    save(alice, {{"layer", layer}, {"content", "x"}, {"namespace", std::string(129, 'n')}}, 400);
  }
  save(alice, {{"layer", std::string(65, 'l')}, {"content", "x"}}, 400);
  save(alice, {{"layer", ""}, {"content", "x"}}, 400);
  save(alice, {{"layer", "session"}, {"content", "x"}, {"session_id", "nope"}}, 400);
  save(alice, {{"layer", "about_me"}, {"content", "x"}, {"colour", "red"}}, 400);
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", admin).body, before) << "nothing written";

  for (const std::string& path : {std::string("/memory?layer=dreams"), std::string("/memory"),
                                  std::string("/memory?layer=about_me&limit=0"),
                                  std::string("/memory?layer=about_me&limit=10000"),
                                  std::string("/memory?layer=about_me&cursor=garbage")}) {
    auto response = call(agentd, "GET", path, alice);
    EXPECT_EQ(response.status, 400) << path << " " << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "invalid_request");
  }
  EXPECT_EQ(call(agentd, "DELETE", "/memory/layer?layer=dreams", alice).status, 400);
  EXPECT_EQ(call(agentd, "DELETE", "/memory/layer", alice).status, 400);
}

// A misspelt filter, dropped, would make a clear meant for one namespace clear the
// caller's whole layer: every query parameter a route does not take, or one given twice,
// is refused, and nothing is deleted.
TEST_F(Memory, AMisspeltOrRepeatedFilterIsRefusedAndClearsNothing) {
  save(alice, {{"layer", "agent_memory"}, {"content", "keep"}, {"namespace", "keep-me"}});
  save(alice, {{"layer", "agent_memory"}, {"content", "drop"}, {"namespace", "drop-me"}});
  const std::string before = call(agentd, "GET", "/memory/counts", alice).body;
  for (const std::string& path :
       {std::string("/memory/layer?layer=agent_memory&namepsace=drop-me"),
        std::string("/memory/layer?layer=agent_memory&namespace=drop-me&namespace=keep-me"),
        std::string("/memory/layer?layer=agent_memory&namespace=drop-me&limit=1")}) {
    auto response = call(agentd, "DELETE", path, alice);
    EXPECT_EQ(response.status, 400) << path << " " << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "invalid_request") << path;
  }
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", alice).body, before) << "nothing deleted";
  EXPECT_EQ(call(agentd, "GET", "/memory/counts?layer=agent_memory", alice).status, 400);
  EXPECT_EQ(call(agentd, "GET", "/memory?layer=about_me&limt=1", alice).status, 400);

  auto cleared =
      call(agentd, "DELETE", "/memory/layer?layer=agent_memory&namespace=drop-me", alice);
  EXPECT_EQ(cleared.json(), (json{{"deleted", 1}})) << cleared.body;
  EXPECT_EQ(list_all(agentd, alice, {{"layer", "agent_memory"}}).size(), 1u);
}

// Metadata nested 2,000 deep (12 KB) once overflowed the request thread's stack in the
// copies of the value and took agentd down with every live run. Refused now past 64
// levels, whole: nothing saved, and agentd goes on.
TEST_F(Memory, MetadataNestedTooDeepIsRefusedAndAgentdGoesOn) {
  const auto nested = [](int depth, const char* open, const char* close) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += open;
    text += "1";
    for (int i = 0; i < depth; ++i) text += close;
    return text;
  };
  std::string before = call(agentd, "GET", "/memory/counts", admin).body;
  for (const std::string& metadata :
       {nested(2000, R"({"a":)", "}"), R"({"a":)" + nested(3000, "[", "]") + "}",
        nested(64, R"({"a":)", "}")}) {
    std::string body = R"({"layer":"about_me","content":"deep","metadata":)" + metadata + "}";
    auto response = agentd.request("POST", "/memory", body, auth_headers(alice));
    EXPECT_EQ(response.status, 400) << response.body.substr(0, 300);
    EXPECT_EQ(response.json()["error"]["code"], "invalid_request");
    EXPECT_NE(response.body.find("more than 64 levels deep"), std::string::npos) << response.body;
  }
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", admin).body, before) << "nothing written";
  EXPECT_EQ(call(agentd, "GET", "/health", "").status, 200);
  // 63 levels of metadata, 64 with the body's own object: kept as sent.
  json deep = json::parse(nested(63, R"({"a":)", "}"));
  json entry = save(alice, {{"layer", "about_me"}, {"content", "deep"}, {"metadata", deep}});
  EXPECT_EQ(
      call(agentd, "GET", "/memory/" + entry["id"].get<std::string>(), alice).json()["metadata"],
      deep);
}

TEST_F(Memory, SearchRanksAndNeverPassesSyntaxThrough) {
  save(alice, {{"layer", "about_me"}, {"content", "alice enjoys green tea in the morning"}});
  save(alice, {{"layer", "about_me"}, {"content", "alice owns a bicycle"}});
  save(bob, {{"layer", "about_me"}, {"content", "bob enjoys green tea too"}});
  auto found = call(agentd, "POST", "/memory/search", alice, {{"query", "green tea"}});
  ASSERT_EQ(found.status, 200) << found.body;
  auto data = found.json()["data"];
  ASSERT_EQ(data.size(), 1u) << "bob's entry is not alice's to find";
  EXPECT_NE(data[0]["entry"]["content"].get<std::string>().find("green tea"), std::string::npos);
  EXPECT_TRUE(data[0]["score"].is_number());
  for (const char* hostile : {"\"", "*", "((", "-", ":", "'"}) {
    auto response = call(agentd, "POST", "/memory/search", alice, {{"query", hostile}});
    EXPECT_EQ(response.status, 400) << hostile << " " << response.body;
  }
  for (const char* odd : {"NEAR(", "tea*", "\"green", "green AND", "tea OR", "col:tea", "a -b"}) {
    auto response = call(agentd, "POST", "/memory/search", alice, {{"query", odd}});
    EXPECT_EQ(response.status, 200) << odd << " " << response.body;
  }
  EXPECT_EQ(
      call(agentd, "POST", "/memory/search", alice, {{"query", "tea"}, {"layers", {"dreams"}}})
          .status,
      400);
  EXPECT_EQ(call(agentd, "POST", "/memory/search", alice, {{"query", "tea"}, {"limit", 0}}).status,
            400);
}

// Bad search input is refused whole, in the documented error shape; a wrong token is
// 401; a non-admin naming another actor still searches as itself.
TEST_F(Memory, SearchRefusesBadInputAndSearchesAsTheCaller) {
  save(alice, {{"layer", "about_me"}, {"content", "alice keeps bees"}});
  for (const json& body :
       {json{{"limit", 3}}, json{{"query", 7}}, json{{"query", "bees"}, {"layers", "about_me"}},
        json{{"query", "bees"}, {"limit", "3"}}, json{{"query", "bees"}, {"colour", "red"}}}) {
    auto response = call(agentd, "POST", "/memory/search", alice, body);
    EXPECT_EQ(response.status, 400) << body.dump() << " -> " << response.body;
    const json& error = response.json()["error"];
    ASSERT_TRUE(error.is_object()) << response.body;
    EXPECT_TRUE(error["code"].is_string()) << response.body;
    EXPECT_FALSE(error["message"].get<std::string>().empty()) << response.body;
    EXPECT_EQ(error["request_id"], response.header("X-Request-Id"));
  }
  auto refused = call(agentd, "POST", "/memory/search", "art_not_a_token", {{"query", "bees"}});
  EXPECT_EQ(refused.status, 401) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "unauthorized");
  EXPECT_EQ(refused.body.find("art_not_a_token"), std::string::npos);
  auto as_bob =
      call(agentd, "POST", "/memory/search", bob, {{"query", "bees"}, {"actor", "alice"}});
  EXPECT_EQ(as_bob.status, 200) << as_bob.body;
  EXPECT_TRUE(as_bob.json()["data"].empty()) << as_bob.body;
}

// A score is BM25 over what its caller may see: another actor's private entries move
// none of alice's, and none of hers reach bob.
TEST_F(Memory, AnotherActorsPrivateEntriesMoveNoScore) {
  for (const char* content : {"kestrel over the heron marsh", "heron", "a kestrel nest"})
    save(alice, {{"layer", "about_me"}, {"content", content}});
  json query_body = {{"query", "kestrel heron"}};
  json before = call(agentd, "POST", "/memory/search", alice, query_body).json();
  ASSERT_EQ(before["data"].size(), 3u);
  for (int i = 0; i < 20; ++i)
    save(bob,
         {{"layer", "about_me"},
          {"content", std::string(i % 2 ? "kestrel" : "heron heron") + " " + std::to_string(i)}});
  EXPECT_EQ(call(agentd, "POST", "/memory/search", alice, query_body).json(), before);
  json bobs = call(agentd, "POST", "/memory/search", bob, query_body).json();
  EXPECT_EQ(bobs["data"].size(), 10u);
  for (const json& hit : bobs["data"]) EXPECT_EQ(hit["entry"]["actor"], "bob");
}

// An agentd whose memory-sqlite reads windows of `search_candidates` matches, with a
// token each for alice and bob.
class MemoryWindow : public ::testing::Test {
 protected:
  void start(int search_candidates) {
    json config = {
        {"plugins", {{"memory-sqlite", {{"config", {{"search_candidates", search_candidates}}}}}}}};
    agentd = std::make_unique<AgentdProcess>(
        with_args({"--config", dir.write("c.json", config.dump())}));
    std::string admin = first_admin_token(*agentd);
    alice = issue_token(*agentd, admin, {{"ttl", "1h"}, {"actor", "alice"}})["token"];
    bob = issue_token(*agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  }
  std::string save(const std::string& token, const json& body) {
    auto response = call(*agentd, "POST", "/memory", token, body);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["id"].get<std::string>();
  }
  std::set<std::string> search(const std::string& token, const json& body) {
    auto response = call(*agentd, "POST", "/memory/search", token, body);
    EXPECT_EQ(response.status, 200) << response.body;
    std::set<std::string> ids;
    for (const json& hit : response.json()["data"]) ids.insert(hit["entry"]["id"]);
    return ids;
  }
  TempDir dir;
  std::unique_ptr<AgentdProcess> agentd;
  std::string alice, bob;
};

// A word's window is its newest matches among what the caller may see: bob's newer
// private entries take no place in alice's, so her own older entry and the cell's
// shared one are still found.
TEST_F(MemoryWindow, AnotherActorsPrivateEntriesTakeNoPlaceInACallersWindow) {
  start(5);
  const std::string own = save(alice, {{"layer", "about_me"}, {"content", "common word"}});
  const std::string shared = save(bob, {{"layer", "consensus"}, {"content", "common ground"}});
  for (int i = 0; i < 12; ++i)
    save(bob,
         {{"layer", i % 2 ? "about_me" : "working"}, {"content", "common " + std::to_string(i)}});
  json query_body = {{"query", "common"}, {"limit", 100}};
  EXPECT_EQ(search(alice, query_body), (std::set<std::string>{own, shared}));
  std::set<std::string> bobs = search(bob, query_body);
  EXPECT_EQ(bobs.size(), 5u);
  EXPECT_EQ(bobs.count(own) + bobs.count(shared), 0u);
  // Nor do alice's own newer entries when she searches the shared layers alone.
  for (int i = 0; i < 12; ++i)
    save(alice, {{"layer", "working"}, {"content", "common task " + std::to_string(i)}});
  query_body["layers"] = json::array({"consensus"});
  EXPECT_EQ(search(alice, query_body), std::set<std::string>{shared});
}

// A session's few entries are read whole (at most search_candidates / 4 of them), so
// the caller's newer matches elsewhere cannot push them out of a session's search.
TEST_F(MemoryWindow, ASessionsEntriesAreFoundPastNewerMatchesElsewhere) {
  start(20);
  std::string session =
      call(*agentd, "POST", "/chat", alice, run_body("hello")).json()["session_id"];
  std::set<std::string> want;
  for (int i = 0; i < 3; ++i)
    want.insert(save(alice, {{"layer", "session"},
                             {"session_id", session},
                             {"content", "common note " + std::to_string(i)}}));
  for (int i = 0; i < 30; ++i)
    save(alice, {{"layer", "about_me"}, {"content", "common fact " + std::to_string(i)}});
  EXPECT_EQ(search(alice, {{"query", "common"}, {"session_id", session}, {"limit", 100}}), want);
}

// Only the session layer's entries go with their session: an entry of another layer that
// names it (where it was learnt) stays, for its own actor or the whole cell; a session's
// deletion must not take every entry naming it, other actors' too.
TEST_F(Memory, SessionEntriesGoWithTheirSession) {
  json chat = call(agentd, "POST", "/chat", alice, run_body("hello")).json();
  std::string session = chat["session_id"];
  save(alice, {{"layer", "session"}, {"session_id", session}, {"content", "scratch"}});
  std::vector<std::string> learnt;
  for (const char* layer : {"about_me", "consensus", "working"})
    learnt.push_back(
        save(alice, {{"layer", layer}, {"session_id", session}, {"content", "kept"}}).at("id"));
  EXPECT_EQ(call(agentd, "GET", "/memory/counts", alice).json()["session"], 1);
  ASSERT_EQ(call(agentd, "DELETE", "/sessions/" + session, alice).status, 204);
  json counts = call(agentd, "GET", "/memory/counts", alice).json();
  EXPECT_EQ(counts["session"], 0);
  EXPECT_EQ(counts["about_me"], 1);
  EXPECT_EQ(counts["consensus"], 1);
  for (const std::string& id : learnt)
    EXPECT_EQ(call(agentd, "GET", "/memory/" + id, alice).status, 200) << id;
}

// A `session_id` on any layer names a session of the acting actor, whatever the token:
// another actor's session, through an admin acting as bob too, or no session at all is
// 400, and nothing is stored.
TEST_F(Memory, ASessionIdNamesASessionOfTheActingActor) {
  std::string session =
      call(agentd, "POST", "/chat", alice, run_body("hello")).json()["session_id"];
  for (const char* layer : {"session", "about_me", "consensus"}) {
    save(bob, {{"layer", layer}, {"session_id", session}, {"content", "x"}}, 400);
    json as_bob = {{"layer", layer}, {"session_id", session}, {"content", "x"}, {"actor", "bob"}};
    EXPECT_EQ(save(admin, as_bob, 400)["error"]["message"],
              "field 'session_id' names no session of actor 'bob'");
    save(admin, {{"layer", layer}, {"session_id", session}, {"content", "x"}}, 400);
    save(alice, {{"layer", layer}, {"session_id", "bad id!"}, {"content", "x"}}, 400);
  }
  json counts = call(agentd, "GET", "/memory/counts", admin).json();
  for (const std::string& layer : kLayers) EXPECT_EQ(counts[layer], 0) << layer;
  json as_alice = {
      {"layer", "session"}, {"session_id", session}, {"content", "x"}, {"actor", "alice"}};
  save(admin, as_alice, 201);
}

TEST_F(Memory, CountsObeyTheFourRulesForEveryFilter) {
  std::mt19937 random(20261122);
  const std::vector<std::string> actors = {"alice", "bob", "carol"};
  const std::vector<std::string> namespaces = {"ns1", "ns2"};
  std::vector<std::string> sessions;
  for (const std::string& actor : actors) {
    json chat = call(agentd, "POST", "/chat", admin, run_body("hi", {{"actor", actor}})).json();
    sessions.push_back(chat["session_id"]);
  }
  const std::vector<std::string> written_layers = {"environment",  "consensus", "about_me",
                                                   "agent_memory", "session",   "working",
                                                   "dreams",       "unknown"};
  for (int i = 0; i < 240; ++i) {
    size_t a = random() % actors.size();
    std::string layer = written_layers[random() % written_layers.size()];
    json body = {{"layer", layer}, {"content", "entry " + std::to_string(i)}, {"actor", actors[a]}};
    if (layer == "agent_memory" || random() % 3 == 0) body["namespace"] = namespaces[random() % 2];
    if (layer == "session") body["session_id"] = sessions[a];
    // Alice also writes with her own token, naming bob: she still writes as herself.
    if (a == 0 && random() % 2 == 0) body["actor"] = "bob";
    save(a == 0 && body["actor"] == "bob" ? alice : admin, body);
  }

  struct Reader {
    std::string token, actor_param;
    std::optional<std::string> own_actor;  // a non-admin's entries must all be its own
  };
  std::vector<Reader> readers = {{admin, "", std::nullopt},
                                 {admin, "alice", std::string("alice")},
                                 {admin, "bob", std::string("bob")},
                                 {alice, "bob", std::string("alice")}};
  for (const Reader& reader : readers) {
    for (const std::string& ns : {std::string(), std::string("ns1"), std::string("ns2")}) {
      std::vector<std::pair<std::string, std::string>> filters;
      if (!reader.actor_param.empty()) filters.push_back({"actor", reader.actor_param});
      if (!ns.empty()) filters.push_back({"namespace", ns});
      json counts = call(agentd, "GET", "/memory/counts" + query(filters), reader.token).json();
      SCOPED_TRACE(query(filters) + (reader.token == alice ? " as alice" : " as admin"));
      ASSERT_EQ(counts.size(), 7u) << counts.dump();  // rule 1
      for (const std::string& layer : kLayers) {
        ASSERT_TRUE(counts[layer].is_number_integer()) << layer;
        auto params = filters;
        params.push_back({"layer", layer});
        auto listed = list_all(agentd, reader.token, params);
        EXPECT_EQ(counts[layer].get<size_t>(), listed.size()) << layer;  // rules 2 and 3
        std::set<std::string> ids;
        for (const auto& e : listed) {
          ids.insert(e["id"]);
          if (reader.own_actor && !kShared.count(layer)) {
            EXPECT_EQ(e["actor"], *reader.own_actor);  // rule 4
          }
          if (!ns.empty()) {
            EXPECT_EQ(e["namespace"], ns);
          }
        }
        EXPECT_EQ(ids.size(), listed.size()) << "no entry twice across pages";
      }
    }
  }
}

TEST(MemoryCells, DeletingACellTakesItsMemory) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "a"}}).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "b"}}).status, 201);
  json entry = {{"layer", "consensus"}, {"content", "cell fact"}};
  ASSERT_EQ(call(agentd, "POST", "/cells/a/memory", admin, entry).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/cells/b/memory", admin, entry).status, 201);
  EXPECT_EQ(call(agentd, "GET", "/cells/b/memory/counts", admin).json()["consensus"], 1);
  ASSERT_EQ(call(agentd, "DELETE", "/admin/cells/a", admin).status, 204);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "a"}}).status, 201);
  EXPECT_EQ(call(agentd, "GET", "/cells/a/memory/counts", admin).json()["consensus"], 0);
  EXPECT_EQ(call(agentd, "GET", "/cells/b/memory/counts", admin).json()["consensus"], 1);
}

// Search is per cell: what one tenant stores changes neither another's hits nor their
// scores.
TEST(MemoryCells, AnotherCellsEntriesChangeNeitherHitsNorScores) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  std::string admin = first_admin_token(agentd);
  for (const char* cell : {"a", "b"})
    ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", cell}}).status, 201);
  for (const char* content : {"kestrel over the heron marsh", "heron", "a kestrel nest"})
    ASSERT_EQ(call(agentd, "POST", "/cells/a/memory", admin,
                   {{"layer", "consensus"}, {"content", content}})
                  .status,
              201);
  json query = {{"query", "kestrel heron"}};
  json before = call(agentd, "POST", "/cells/a/memory/search", admin, query).json();
  ASSERT_EQ(before["data"].size(), 3u);
  for (int i = 0; i < 30; ++i)
    ASSERT_EQ(call(agentd, "POST", "/cells/b/memory", admin,
                   {{"layer", "consensus"},
                    {"content", std::string(i % 2 ? "kestrel" : "heron heron") + " words " +
                                    std::to_string(i)}})
                  .status,
              201);
  EXPECT_EQ(call(agentd, "POST", "/cells/a/memory/search", admin, query).json(), before);
  EXPECT_EQ(call(agentd, "POST", "/cells/b/memory/search", admin, query).json()["data"].size(),
            10u);
}

}  // namespace
}  // namespace agentrt::test
