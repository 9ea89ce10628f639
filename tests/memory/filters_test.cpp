// Who sees what: shared layers, per-actor layers, namespace and session filters, and
// cells that never see each other, in every operation.
#include "memory_fixture.h"

namespace agentrt::test {
namespace {

TEST_F(MemoryTest, SharedLayersAreSeenByEveryActorOfTheCell) {
  for (std::string layer : {"environment", "consensus"}) {
    json e = save({{"layer", layer}, {"actor", "alice"}, {"content", "office is open"}});
    for (std::string actor : {"alice", "bob", ""}) {
      json f = filter("c1", actor);
      EXPECT_EQ(get(f, e["id"])["id"], e["id"]) << layer << " " << actor;
      EXPECT_EQ(ids_of(list(f, layer)["data"]), std::vector<std::string>{e["id"]});
      EXPECT_EQ(count(f)[layer], 1) << layer << " " << actor;
      EXPECT_EQ(ids_of(search(f, "office", {layer})["data"]), std::vector<std::string>{e["id"]});
    }
  }
}

TEST_F(MemoryTest, PersonalLayersBelongToOneActor) {
  for (std::string layer : {"about_me", "agent_memory", "session", "working", "unknown"}) {
    json e = save({{"layer", layer}, {"actor", "alice"}, {"content", "secret plan"}});
    json bob = filter("c1", "bob");
    EXPECT_EQ(failure([&] { get(bob, e["id"]); }).code, AGENTRT_ERR_NOT_FOUND) << layer;
    EXPECT_TRUE(list(bob, layer)["data"].empty());
    EXPECT_EQ(count(bob)[layer], 0);
    EXPECT_TRUE(search(bob, "secret")["data"].empty());
    EXPECT_EQ(clear_layer(bob, layer)["deleted"], 0);
    EXPECT_EQ(failure([&] { remove(bob, e["id"]); }).code, AGENTRT_ERR_NOT_FOUND);
    // The owner, and a filter without an actor (an admin read), do see it.
    EXPECT_EQ(get(filter("c1", "alice"), e["id"])["id"], e["id"]);
    EXPECT_EQ(count(filter("c1"))[layer], 1);
    EXPECT_EQ(remove(filter("c1", "alice"), e["id"])["deleted"], 1);
  }
}

TEST_F(MemoryTest, NamespaceFilterAppliesToEveryLayer) {
  json helper = save({{"layer", "agent_memory"}, {"namespace", "helper"}, {"content", "tool a"}});
  json coder = save({{"layer", "agent_memory"}, {"namespace", "coder"}, {"content", "tool b"}});
  json shared = save({{"layer", "consensus"}, {"namespace", "helper"}, {"content", "tool c"}});
  save({{"layer", "consensus"}, {"content", "tool d"}});
  json f = filter("c1", "alice", "helper");
  EXPECT_EQ(ids_of(list(f, "agent_memory")["data"]), std::vector<std::string>{helper["id"]});
  EXPECT_EQ(ids_of(list(f, "consensus")["data"]), std::vector<std::string>{shared["id"]});
  EXPECT_EQ(count(f)["agent_memory"], 1);
  EXPECT_EQ(count(f)["consensus"], 1);
  EXPECT_EQ(count(filter("c1", "alice"))["consensus"], 2);
  EXPECT_EQ(failure([&] { get(f, coder["id"]); }).code, AGENTRT_ERR_NOT_FOUND);
  std::vector<std::string> found = ids_of(search(f, "tool")["data"]);
  std::sort(found.begin(), found.end());
  std::vector<std::string> expected = {helper["id"], shared["id"]};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found, expected);
}

TEST_F(MemoryTest, SessionFilterAppliesToEveryLayer) {
  json s1 = save({{"layer", "session"}, {"session_id", "s1"}, {"content", "step one"}});
  save({{"layer", "session"}, {"session_id", "s2"}, {"content", "step two"}});
  json env = save({{"layer", "environment"}, {"session_id", "s1"}, {"content", "step sensor"}});
  json f = filter("c1", "alice", "", "s1");
  EXPECT_EQ(ids_of(list(f, "session")["data"]), std::vector<std::string>{s1["id"]});
  EXPECT_EQ(count(f)["session"], 1);
  EXPECT_EQ(count(f)["environment"], 1);
  EXPECT_EQ(count(filter("c1"))["session"], 2);
  EXPECT_EQ(search(f, "step")["data"].size(), 2u);
  EXPECT_EQ(get(f, env["id"])["id"], env["id"]);
}

TEST_F(MemoryTest, CellsAreIsolatedInEveryOperation) {
  auto in = [&](const std::string& cell, const std::string& layer, const std::string& sid) {
    return save({{"cell", cell}, {"layer", layer}, {"session_id", sid}, {"content", "zebra"}});
  };
  json a_env = in("a", "environment", "s");
  json a_me = in("a", "session", "s");
  json b_env = in("b", "environment", "s");
  in("b", "session", "s");
  json fb = filter("b");

  EXPECT_EQ(failure([&] { get(fb, a_env["id"]); }).code, AGENTRT_ERR_NOT_FOUND);
  EXPECT_EQ(failure([&] { remove(fb, a_me["id"]); }).code, AGENTRT_ERR_NOT_FOUND);
  EXPECT_EQ(ids_of(list(fb, "environment")["data"]), std::vector<std::string>{b_env["id"]});
  EXPECT_EQ(count(fb)["environment"], 1);
  EXPECT_EQ(count(fb)["session"], 1);
  EXPECT_EQ(search(fb, "zebra")["data"].size(), 2u);
  EXPECT_EQ(count(filter("nowhere")), json({{"environment", 0},
                                            {"consensus", 0},
                                            {"about_me", 0},
                                            {"agent_memory", 0},
                                            {"session", 0},
                                            {"working", 0},
                                            {"unknown", 0},
                                            {"cache_s", 60}}));

  EXPECT_EQ(clear_layer(fb, "environment")["deleted"], 1);
  EXPECT_EQ(delete_by_session("b", "s")["deleted"], 1);
  EXPECT_EQ(count(fb)["session"], 0);
  // Cell a is untouched by everything done in b.
  json fa = filter("a");
  EXPECT_EQ(count(fa)["environment"], 1);
  EXPECT_EQ(count(fa)["session"], 1);
  EXPECT_EQ(get(fa, a_me["id"])["id"], a_me["id"]);
  EXPECT_EQ(search(fa, "zebra")["data"].size(), 2u);
}

}  // namespace
}  // namespace agentrt::test
