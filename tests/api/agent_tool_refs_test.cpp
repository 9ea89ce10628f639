// Agents' references to server tools and the built-in memory tools (docs/tools.md,
// "Agents" and "Built-in tools"), against the real agentd: what an agent write refuses,
// what it keeps, and the memory tools acting as the run's actor within the agent's
// layers, never outside them.
#include "tests/api/server_tools_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

json mcp(const std::string& server, json tools = nullptr) {
  json ref = {{"type", "mcp"}, {"server", server}};
  if (!tools.is_null()) ref["tools"] = std::move(tools);
  return ref;
}

json builtin(const std::string& name) {
  return {{"type", "builtin"}, {"name", name}};
}

TEST_F(ServerToolsApi, AnAgentsToolReferencesAreCheckedWhenWritten) {
  auto refused = [&](const json& tools, const std::string& words) {
    auto made = call(s.agentd, "POST", "/agents", s.admin, {{"name", "x"}, {"tools", tools}});
    EXPECT_EQ(made.status, 400) << tools.dump();
    EXPECT_NE(made.body.find(words), std::string::npos) << made.body;
  };
  refused(json::array({mcp("nope")}), "no tool server is named 'nope'");
  refused(json::array({mcp("calc", {"add", "nope"})}), "tool server 'calc' lists no tool 'nope'");
  refused(json::array({mcp("calc"), mcp("twin")}), "tool 'add' of tool server 'twin'");
  refused(json::array({mcp("calc"), mcp("calc", {"add"})}),
          "tool server 'calc' is referenced twice");
  refused(json::array({mcp("calc", json::array())}), "'tools[0].tools' must be a non-empty array");
  refused(json::array({{{"type", "mcp"}, {"server", "calc"}, {"require_approval", "sometimes"}}}),
          "'tools[0].require_approval' must be always or never");
  refused(json::array({{{"type", "function"}, {"name", "memory_save"}}, builtin("memory_save")}),
          "tool 'memory_save' is named twice");
  refused(json::array({builtin("shell")}), "'tools[0].name' must be memory_search or memory_save");
  refused(json::array({{{"type", "plugin"}, {"name", "x"}}}), "must be function, mcp or builtin");
  refused(json::array({{{"type", "function"}, {"name", "add"}}, mcp("calc")}),
          "tool 'add' of tool server");
  EXPECT_EQ(call(s.agentd, "GET", "/agents", s.admin).json()["data"].size(), 0u);

  // Two servers with the same names clash only for the tools offered.
  const json tools = {
      builtin("memory_search"),
      mcp("calc", {"add"}),
      weather_tool(),
      {{"type", "mcp"}, {"server", "twin"}, {"tools", {"wait"}}, {"require_approval", "always"}}};
  const std::string agent = make_agent(tools);
  const json shown = call(s.agentd, "GET", "/agents/" + agent, s.admin).json()["tools"];
  const json expected = {weather_tool(), builtin("memory_search"), mcp("calc", {"add"}), tools[3]};
  EXPECT_EQ(shown, expected) << "client tools first, then the references as given";
  auto patched = call(s.agentd, "PATCH", "/agents/" + agent, s.admin, {{"tools", nullptr}});
  EXPECT_EQ(patched.json()["tools"], json::array()) << patched.body;
}

TEST_F(ServerToolsApi, ARunOffersTheReferencedToolsOnly) {
  const std::string agent = make_agent({mcp("calc", {"add"}), builtin("memory_search")},
                                       {{"memory_layers", {"session", "about_me"}}});
  s.fake.enqueue(Reply::answer("hi", 1));
  EXPECT_EQ(chat(agent_body(agent, "hello", "offer1")).status, 200);
  const json tools = s.fake.requests()[0].json()["tools"];
  ASSERT_EQ(tools.size(), 2u) << tools.dump();
  EXPECT_EQ(tools[0]["function"]["name"], "add") << "in the order of the references";
  EXPECT_EQ(tools[1]["function"]["name"], "memory_search");
  EXPECT_EQ(tools[1]["function"]["parameters"]["properties"]["layers"]["items"]["enum"],
            json({"session", "about_me"}))
      << "the schema names the layers the agent's runs see";
  // A request's tool named like one of them is 400.
  auto clash = chat(
      agent_body(agent, "x", "offer2", {{"tools", {{{"type", "function"}, {"name", "add"}}}}}));
  EXPECT_EQ(clash.status, 400) << clash.body;
}

class MemoryTools : public ServerToolsApi {
 protected:
  void SetUp() override {
    agent = make_agent(
        {builtin("memory_save"), builtin("memory_search")},
        {{"namespace", "helper-ns"}, {"memory_layers", {"agent_memory", "session", "about_me"}}});
    bob = issue_token(s.agentd, s.admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  }
  json listed(const std::string& query) {
    return call(s.agentd, "GET", "/memory?" + query, s.admin).json()["data"];
  }
  std::string agent, bob;
};

TEST_F(MemoryTools, TheyActAsTheRunsActorWithinTheAgentsLayers) {
  // Bob's own entry in the namespace: alice's runs never see it.
  ASSERT_EQ(call(s.agentd, "POST", "/memory", bob,
                 {{"layer", "agent_memory"}, {"namespace", "helper-ns"}, {"content", "bob: green"}})
                .status,
            201);
  s.fake.enqueue(Reply::calling(
      {{"m1", "memory_save", R"({"layer":"agent_memory","content":"alice likes green tea"})"},
       {"m2", "memory_save", R"({"layer":"consensus","content":"everyone likes tea"})"},
       {"m3", "memory_save", R"({"layer":"session","content":"planning a trip"})"},
       {"m4", "memory_save", R"({"layer":"about_me","content":"x","actor":"bob"})"}}));
  s.fake.enqueue(
      Reply::calling({{"m5", "memory_search", R"({"query":"green tea"})"},
                      {"m6", "memory_search", R"({"query":"x","layers":["working"]})"}}));
  s.fake.enqueue(Reply::answer("noted", 1));
  // A new session, by /chat: its start is stored before the tools run, so the session
  // layer can be written.
  const json answer = chat(agent_body(agent, "remember", "mem1", {{"actor", "alice"}})).json();
  ASSERT_EQ(answer["reason"], "end_turn") << answer.dump();
  ASSERT_EQ(s.fake.request_count(), 3u);

  const json second = s.fake.requests()[1].json()["messages"];
  ASSERT_EQ(second.size(), 6u) << second.dump();
  EXPECT_NE(second[2]["content"].get<std::string>().find(R"("saved")"), std::string::npos);
  EXPECT_NE(second[3]["content"].get<std::string>().find(
                "layer 'consensus' is not one this conversation may use"),
            std::string::npos)
      << second[3].dump();
  EXPECT_NE(second[4]["content"].get<std::string>().find(R"("saved")"), std::string::npos)
      << second[4].dump();
  EXPECT_NE(second[5]["content"].get<std::string>().find("unknown argument 'actor'"),
            std::string::npos);

  const json found =
      json::parse(s.fake.requests()[2].json()["messages"][7]["content"].get<std::string>());
  ASSERT_EQ(found["results"].size(), 1u) << found.dump();
  EXPECT_EQ(found["results"][0]["content"], "alice likes green tea");
  EXPECT_EQ(found["results"][0]["layer"], "agent_memory");
  const std::string refused = s.fake.requests()[2].json()["messages"][8]["content"];
  EXPECT_NE(refused.find("layer 'working' is not one"), std::string::npos) << refused;

  // What was written: alice's, in the agent's namespace and the run's session; nothing
  // shared, nothing of bob's.
  const json own = listed("layer=agent_memory&namespace=helper-ns&actor=alice");
  ASSERT_EQ(own.size(), 1u) << own.dump();
  EXPECT_EQ(own[0]["actor"], "alice");
  const json session = listed("layer=session&session_id=mem1");
  ASSERT_EQ(session.size(), 1u) << session.dump();
  EXPECT_EQ(session[0]["content"], "planning a trip");
  EXPECT_TRUE(listed("layer=consensus").empty());
  EXPECT_TRUE(listed("layer=about_me&actor=bob").empty());
}

}  // namespace
}  // namespace agentrt::test
