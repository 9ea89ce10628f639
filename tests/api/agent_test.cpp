// Agents, and memory that a conversation actually uses: with a fake upstream recording
// what it receives, the agent's system prompt and each visible layer reach the
// provider, memory of another actor, namespace or cell never does, a small window drops
// in the documented order, and deleting an agent deletes its namespace's memory.
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

class Agents : public ::testing::Test {
 protected:
  explicit Agents(int64_t window = 4096)
      : s(Vendor::openai, with_args({"--mode", "multi"}), window) {}
  void SetUp() override {
    ASSERT_EQ(call(s.agentd, "POST", "/admin/cells", s.admin, {{"id", "acme"}}).status, 201);
    ASSERT_EQ(call(s.agentd, "POST", "/admin/cells", s.admin, {{"id", "other"}}).status, 201);
    alice = issue_token(s.agentd, s.admin,
                        {{"ttl", "1h"}, {"actor", "alice"}, {"cell", "acme"}})["token"];
    s.fake.set_default(Reply::answer("ok", 1));
  }
  json make_agent(json body) {
    auto response = call(s.agentd, "POST", "/cells/acme/agents", s.admin, body);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json();
  }
  void remember(const std::string& cell, json entry, const std::string& token = "") {
    auto response = call(s.agentd, "POST", "/cells/" + cell + "/memory",
                         token.empty() ? s.admin : token, entry);
    ASSERT_EQ(response.status, 201) << response.body;
  }
  std::string chat_and_capture(const std::string& token, json body) {
    auto response = call(s.agentd, "POST", "/cells/acme/chat", token, body);
    EXPECT_EQ(response.status, 200) << response.body;
    return s.fake.last_request().body;
  }
  VendorSetup s;
  std::string alice;
};

TEST_F(Agents, CrudWithUniqueNamesAndAdminOnlyWrites) {
  json agent = make_agent({{"name", "helper"},
                           {"model", vendor_model(Vendor::openai)},
                           {"system_prompt", "Be brief."}});
  EXPECT_EQ(agent["namespace"], agent["id"]);
  EXPECT_EQ(agent["memory_layers"].size(), 5u);
  std::string id = agent["id"];
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/agents", s.admin, {{"name", "helper"}}).status,
            409);
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/agents", s.admin, {{"model", "x"}}).status, 400);
  // A model no provider offers is refused then, not at the agent's first run.
  auto unknown = call(s.agentd, "POST", "/cells/acme/agents", s.admin,
                      {{"name", "lost"}, {"model", "no-such-model"}});
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  EXPECT_NE(unknown.json()["error"]["message"].get<std::string>().find("field 'model'"),
            std::string::npos);
  EXPECT_EQ(
      call(s.agentd, "PATCH", "/cells/acme/agents/" + id, s.admin, {{"model", "no-such-model"}})
          .status,
      400);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/agents/" + id, s.admin).json()["model"],
            vendor_model(Vendor::openai));
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/agents", s.admin,
                 {{"name", "y"}, {"memory_layers", {"dreams"}}})
                .status,
            400);
  // Two names that print alike are one name: no control character, no blank at an end.
  for (const std::string odd : {"ctl\x01", " q", "q ", "a\tb", "c\xc2\x85"}) {
    const auto refused = call(s.agentd, "POST", "/cells/acme/agents", s.admin, {{"name", odd}});
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_NE(refused.body.find("field 'name'"), std::string::npos) << refused.body;
  }
  EXPECT_EQ(
      call(s.agentd, "PATCH", "/cells/acme/agents/" + id, s.admin, {{"name", "helper "}}).status,
      400);
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/agents", alice, {{"name", "mine"}}).status, 403);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/agents/" + id, alice).json()["name"], "helper");
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/agents", alice).json()["data"].size(), 1u);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/other/agents/" + id, s.admin).status, 404);
  auto patched =
      call(s.agentd, "PATCH", "/cells/acme/agents/" + id, s.admin, {{"description", "d"}});
  EXPECT_EQ(patched.json()["description"], "d");
  EXPECT_EQ(call(s.agentd, "PATCH", "/cells/acme/agents/" + id, s.admin, {{"id", "z"}}).status,
            400);
  EXPECT_EQ(call(s.agentd, "DELETE", "/cells/acme/agents/" + id, alice).status, 403);
  EXPECT_EQ(call(s.agentd, "DELETE", "/cells/acme/agents/" + id, s.admin).status, 204);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/agents/" + id, s.admin).status, 404);
}

// A PATCH that changes nothing (an empty object, or the values already held) leaves the
// agent or the cell as it was, updated_at too: a client that syncs by updated_at saw a
// change where there was none. A PATCH that changes a field moves it.
TEST_F(Agents, APatchThatChangesNothingLeavesUpdatedAtAsItWas) {
  const json agent = make_agent({{"name", "helper"}, {"description", "d"}});
  const std::string path = "/cells/acme/agents/" + agent["id"].get<std::string>();
  const json cell = call(s.agentd, "GET", "/admin/cells/other", s.admin).json();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a later updated_at differs
  for (const json& same : {json::object(), json{{"description", "d"}},
                           json{{"name", "helper"}, {"memory_layers", agent["memory_layers"]}}}) {
    HttpResponse patched = call(s.agentd, "PATCH", path, s.admin, same);
    EXPECT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(patched.json(), agent) << same;
  }
  EXPECT_EQ(call(s.agentd, "GET", path, s.admin).json(), agent);
  for (const json& same : {json::object(), json{{"locale", cell["locale"]}}}) {
    HttpResponse patched = call(s.agentd, "PATCH", "/admin/cells/other", s.admin, same);
    EXPECT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(patched.json(), cell) << same;
  }

  const json changed = call(s.agentd, "PATCH", path, s.admin, {{"description", "e"}}).json();
  EXPECT_NE(changed["updated_at"], agent["updated_at"]);
  EXPECT_EQ(changed["created_at"], agent["created_at"]);
  const json moved =
      call(s.agentd, "PATCH", "/admin/cells/other", s.admin, {{"locale", "fr-FR"}}).json();
  EXPECT_NE(moved["updated_at"], cell["updated_at"]);
}

// An agent read and written back as it is must not fail when the provider of its model
// has been withdrawn since: the model is checked only when the PATCH changes it.
TEST_F(Agents, WritingBackAModelNoLongerOfferedIsANoOpButChangingToOneIsRefused) {
  const json provider = {{"providers",
                          {{{"name", "temporary"},
                            {"type", "echo"},
                            {"models", {{{"id", "tmp-model"}, {"context_window", 100}}}}}}}};
  ASSERT_EQ(call(s.agentd, "POST", "/admin/shared-providers", s.admin, provider).status, 200);
  const json agent = make_agent({{"name", "keeper"}, {"model", "tmp-model"}});
  const json other = make_agent({{"name", "mover"}});
  ASSERT_EQ(call(s.agentd, "DELETE", "/admin/shared-providers/temporary", s.admin).status, 204);

  const std::string path = "/cells/acme/agents/" + agent["id"].get<std::string>();
  HttpResponse written_back =
      call(s.agentd, "PATCH", path, s.admin, {{"name", "keeper"}, {"model", "tmp-model"}});
  EXPECT_EQ(written_back.status, 200) << written_back.body;
  EXPECT_EQ(written_back.json(), agent);
  HttpResponse renamed =
      call(s.agentd, "PATCH", path, s.admin, {{"name", "keeper2"}, {"model", "tmp-model"}});
  EXPECT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(renamed.json()["model"], "tmp-model");

  const std::string other_path = "/cells/acme/agents/" + other["id"].get<std::string>();
  HttpResponse moved = call(s.agentd, "PATCH", other_path, s.admin, {{"model", "tmp-model"}});
  EXPECT_EQ(moved.status, 400) << moved.body;
  EXPECT_NE(moved.body.find("no provider offers model 'tmp-model'"), std::string::npos);
  EXPECT_EQ(call(s.agentd, "GET", other_path, s.admin).json(), other);
}

// JSON null in a body is "remove" for the one field that has a "none", an agent's model,
// and 400 for the others; read as "leave it", it would leave no way to remove a model.
TEST_F(Agents, NullRemovesAModelAndIsRefusedWhereThereIsNoNone) {
  json agent = make_agent({{"name", "helper"}, {"model", vendor_model(Vendor::openai)}});
  const std::string path = "/cells/acme/agents/" + agent["id"].get<std::string>();
  HttpResponse cleared = call(s.agentd, "PATCH", path, s.admin, {{"model", nullptr}});
  EXPECT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_TRUE(cleared.json()["model"].is_null()) << cleared.body;
  EXPECT_TRUE(call(s.agentd, "GET", path, s.admin).json()["model"].is_null());
  for (const char* field : {"name", "system_prompt", "description", "namespace", "memory_layers"}) {
    HttpResponse refused = call(s.agentd, "PATCH", path, s.admin, {{field, nullptr}});
    EXPECT_EQ(refused.status, 400) << field;
    EXPECT_EQ(refused.json()["error"]["message"],
              "field '" + std::string(field) + "' must not be null");
  }
  for (const json& bad : {json{{"name", "x"}, {"model", ""}}, json{{"name", "   "}},
                          json{{"name", "x"}, {"memory_layers", {"about_me", "about_me"}}}}) {
    HttpResponse refused = call(s.agentd, "POST", "/cells/acme/agents", s.admin, bad);
    EXPECT_EQ(refused.status, 400) << bad.dump() << " -> " << refused.body;
  }
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/agents", s.admin).json()["data"].size(), 1u);
  for (const char* field : {"timezone", "locale"})
    EXPECT_EQ(call(s.agentd, "PATCH", "/admin/cells/acme", s.admin, {{field, nullptr}}).status, 400)
        << field;
}

TEST_F(Agents, PromptAndVisibleMemoryReachTheProviderAndNothingElse) {
  json agent = make_agent({{"name", "helper"},
                           {"model", vendor_model(Vendor::openai)},
                           {"system_prompt", "You are the acme helper."}});
  std::string ns = agent["namespace"];
  remember("acme", {{"layer", "about_me"}, {"content", "alice-likes-tea"}}, alice);
  remember("acme", {{"layer", "consensus"}, {"content", "acme-ships-fridays"}});
  remember("acme", {{"layer", "environment"}, {"content", "acme-office-is-cold"}});
  remember("acme", {{"layer", "agent_memory"}, {"namespace", ns}, {"content", "helper-knows-acme"}},
           alice);
  // What must never reach alice's run:
  remember("acme", {{"layer", "about_me"}, {"actor", "bob"}, {"content", "bob-secret-habit"}});
  remember("acme",
           {{"layer", "agent_memory"},
            {"namespace", "someone-else"},
            {"content", "other-namespace-fact"}},
           alice);
  remember("other", {{"layer", "consensus"}, {"content", "other-cell-fact"}});
  remember("acme", {{"layer", "working"}, {"content", "scratch-pad"}}, alice);

  json first = call(s.agentd, "POST", "/cells/acme/chat", alice,
                    {{"agent_id", agent["id"]}, {"messages", {user_text("hi")}}})
                   .json();
  remember("acme",
           {{"layer", "session"}, {"session_id", first["session_id"]}, {"content", "session-note"}},
           alice);
  std::string sent = chat_and_capture(alice, {{"agent_id", agent["id"]},
                                              {"session_id", first["session_id"]},
                                              {"messages", {user_text("hello again")}}});
  json request = json::parse(sent);
  EXPECT_EQ(request["model"], vendor_model(Vendor::openai)) << "the agent's model";
  EXPECT_EQ(request["messages"][0]["role"], "system");
  for (const char* seen :
       {"You are the acme helper.", "alice-likes-tea", "acme-ships-fridays", "acme-office-is-cold",
        "helper-knows-acme", "session-note", "hello again"})
    EXPECT_NE(sent.find(seen), std::string::npos) << seen;
  for (const char* unseen :
       {"bob-secret-habit", "other-namespace-fact", "other-cell-fact", "scratch-pad"})
    EXPECT_EQ(sent.find(unseen), std::string::npos) << unseen;

  std::string without = chat_and_capture(
      alice,
      {{"agent_id", agent["id"]}, {"memory", false}, {"messages", {user_text("no memory")}}});
  EXPECT_EQ(without.find("alice-likes-tea"), std::string::npos);
  EXPECT_NE(without.find("You are the acme helper."), std::string::npos);

  std::string plain = chat_and_capture(
      alice, {{"model", vendor_model(Vendor::openai)}, {"messages", {user_text("no agent")}}});
  EXPECT_NE(plain.find("alice-likes-tea"), std::string::npos)
      << "runs without an agent see memory too";
  EXPECT_EQ(plain.find("helper-knows-acme"), std::string::npos) << "but no agent_memory";
}

// Runs reuse the actor's memory totals (memory_totals_cache.h); any write to the cell
// must end that, or a run would skip a layer it counted empty before.
TEST_F(Agents, MemorySavedBetweenRunsReachesTheNextRun) {
  const json plain = {{"model", vendor_model(Vendor::openai)}, {"messages", {user_text("hi")}}};
  std::string sent = chat_and_capture(alice, plain);
  EXPECT_EQ(sent.find("alice-likes-tea"), std::string::npos);
  remember("acme", {{"layer", "about_me"}, {"content", "alice-likes-tea"}}, alice);
  sent = chat_and_capture(alice, plain);
  EXPECT_NE(sent.find("alice-likes-tea"), std::string::npos) << "her own write";
  remember("acme", {{"layer", "consensus"}, {"content", "acme-ships-fridays"}});
  sent = chat_and_capture(alice, plain);
  EXPECT_NE(sent.find("acme-ships-fridays"), std::string::npos) << "the admin's shared write";
  remember("other", {{"layer", "consensus"}, {"content", "other-cell-fact"}});
  sent = chat_and_capture(alice, plain);
  EXPECT_EQ(sent.find("other-cell-fact"), std::string::npos);
  EXPECT_NE(sent.find("acme-ships-fridays"), std::string::npos);
}

TEST_F(Agents, UnknownAgentOrNoModelIsRefused) {
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/chat", alice,
                 {{"agent_id", "agt_nope"}, {"messages", {user_text("x")}}})
                .status,
            400);
  json modelless = make_agent({{"name", "blank"}});
  auto response = call(s.agentd, "POST", "/cells/acme/chat", alice,
                       {{"agent_id", modelless["id"]}, {"messages", {user_text("x")}}});
  EXPECT_EQ(response.status, 400);
  EXPECT_NE(response.body.find("model"), std::string::npos);
}

// Runs find agents in memory (core/agents/agent_cache.h): each change must reach the
// next run, and a deleted agent, or one of a deleted cell, must be gone for it.
TEST_F(Agents, EveryChangeToAnAgentReachesItsNextRun) {
  json agent = make_agent({{"name", "helper"},
                           {"model", vendor_model(Vendor::openai)},
                           {"system_prompt", "first-prompt"}});
  const json body = {{"agent_id", agent["id"]}, {"messages", {user_text("hi")}}};
  EXPECT_NE(chat_and_capture(alice, body).find("first-prompt"), std::string::npos);
  const std::string path = "/cells/acme/agents/" + agent["id"].get<std::string>();
  ASSERT_EQ(call(s.agentd, "PATCH", path, s.admin, {{"system_prompt", "second-prompt"}}).status,
            200);
  std::string sent = chat_and_capture(alice, body);
  EXPECT_NE(sent.find("second-prompt"), std::string::npos);
  EXPECT_EQ(sent.find("first-prompt"), std::string::npos);
  ASSERT_EQ(call(s.agentd, "DELETE", path, s.admin).status, 204);
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/chat", alice, body).status, 400);

  json kept = make_agent({{"name", "kept"}, {"model", vendor_model(Vendor::openai)}});
  const json kept_body = {{"agent_id", kept["id"]}, {"messages", {user_text("hi")}}};
  chat_and_capture(alice, kept_body);
  ASSERT_EQ(call(s.agentd, "DELETE", "/admin/cells/acme", s.admin).status, 204);
  ASSERT_EQ(call(s.agentd, "POST", "/admin/cells", s.admin, {{"id", "acme"}}).status, 201);
  EXPECT_EQ(call(s.agentd, "POST", "/cells/acme/chat", s.admin, kept_body).status, 400)
      << "an agent of the deleted cell";
}

TEST_F(Agents, DeletingAnAgentDeletesItsNamespacesMemory) {
  json agent = make_agent({{"name", "helper"}, {"model", vendor_model(Vendor::openai)}});
  std::string ns = agent["namespace"];
  remember("acme", {{"layer", "agent_memory"}, {"namespace", ns}, {"content", "a"}}, alice);
  remember("acme",
           {{"layer", "agent_memory"}, {"namespace", ns}, {"actor", "bob"}, {"content", "b"}});
  remember("acme", {{"layer", "agent_memory"}, {"namespace", "keep"}, {"content", "c"}}, alice);
  json chat = call(s.agentd, "POST", "/cells/acme/chat", alice,
                   {{"agent_id", agent["id"]}, {"messages", {user_text("x")}}})
                  .json();
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/memory/counts?namespace=" + ns, s.admin)
                .json()["agent_memory"],
            2);
  ASSERT_EQ(
      call(s.agentd, "DELETE", "/cells/acme/agents/" + agent["id"].get<std::string>(), s.admin)
          .status,
      204);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/memory/counts?namespace=" + ns, s.admin)
                .json()["agent_memory"],
            0);
  EXPECT_EQ(call(s.agentd, "GET", "/cells/acme/memory/counts?namespace=keep", s.admin)
                .json()["agent_memory"],
            1);
  EXPECT_EQ(
      call(s.agentd, "GET",
           "/cells/acme/sessions/" + chat["session_id"].get<std::string>() + "/messages", alice)
          .json()["data"]
          .size(),
      2u)
      << "runs keep their history";
}

// Agents given one namespace share its memory: it goes with the last of them.
TEST_F(Agents, ASharedNamespacesMemoryGoesWithTheLastAgentThatUsesIt) {
  json first = make_agent({{"name", "first"}, {"namespace", "team"}});
  json second = make_agent({{"name", "second"}, {"namespace", "team"}});
  remember("acme", {{"layer", "agent_memory"}, {"namespace", "team"}, {"content", "shared"}},
           alice);
  auto team_entries = [&] {
    return call(s.agentd, "GET", "/cells/acme/memory/counts?namespace=team", s.admin)
        .json()["agent_memory"];
  };
  ASSERT_EQ(team_entries(), 1);
  ASSERT_EQ(
      call(s.agentd, "DELETE", "/cells/acme/agents/" + first["id"].get<std::string>(), s.admin)
          .status,
      204);
  EXPECT_EQ(team_entries(), 1) << "the second agent still reads it";
  ASSERT_EQ(
      call(s.agentd, "DELETE", "/cells/acme/agents/" + second["id"].get<std::string>(), s.admin)
          .status,
      204);
  EXPECT_EQ(team_entries(), 0);
}

class SmallWindowAgents : public Agents {
 protected:
  // 120, of which a quarter is kept for the answer (no max_tokens): 90 for the context.
  SmallWindowAgents() : Agents(120) {}
};

TEST_F(SmallWindowAgents, MemoryIsDroppedInTheDocumentedOrder) {
  json agent = make_agent({{"name", "helper"}, {"model", vendor_model(Vendor::openai)}});
  std::string ns = agent["namespace"];
  // 90 tokens for the context: the new message (19), the memory heading and three
  // entries (about 15 each) fit; the environment entry and the history do not.
  auto fact = [](const char* tag) { return std::string(tag) + std::string(40, '.'); };
  remember("acme", {{"layer", "environment"}, {"content", fact("ENV")}});
  remember("acme", {{"layer", "consensus"}, {"content", fact("CONSENSUS")}});
  remember("acme", {{"layer", "about_me"}, {"content", fact("ABOUT")}}, alice);
  remember("acme", {{"layer", "agent_memory"}, {"namespace", ns}, {"content", fact("AGENT")}},
           alice);
  std::string sent;
  for (int turn = 0; turn < 3; ++turn)
    sent = chat_and_capture(alice, {{"agent_id", agent["id"]},
                                    {"session_id", "w"},
                                    {"messages", {user_text(std::string(60, 'h'))}}});
  // Highest priority first: agent_memory, about_me, consensus; environment and the
  // history go before them.
  EXPECT_NE(sent.find("AGENT"), std::string::npos);
  EXPECT_NE(sent.find("ABOUT"), std::string::npos);
  EXPECT_NE(sent.find("CONSENSUS"), std::string::npos);
  EXPECT_EQ(sent.find("ENV"), std::string::npos) << sent;
  size_t history = 0;
  const json request = json::parse(sent);  // named: a range-for over a temporary's member dangles
  for (const auto& m : request["messages"]) history += m["role"] == "assistant";
  EXPECT_EQ(history, 0u) << "the history goes first of all";
}

}  // namespace
}  // namespace agentrt::test
