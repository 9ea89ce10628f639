// clear_layer deletes exactly what list shows; delete_by_session removes a session's
// session-layer entries, whoever wrote them, in one cell, and nothing of other layers.
#include "memory_fixture.h"

#include <algorithm>

namespace agentrt::test {
namespace {

TEST_F(MemoryTest, ClearLayerDeletesExactlyTheListedSet) {
  const std::vector<std::string> actors = {"alice", "bob"}, namespaces = {"", "n1"},
                                 sessions = {"", "s1"};
  for (const std::string& layer : {std::string("working"), std::string("consensus")})
    for (const std::string& a : actors)
      for (const std::string& n : namespaces)
        for (const std::string& s : sessions)
          for (int copy = 0; copy < 2; ++copy)
            save({{"layer", layer},
                  {"actor", a},
                  {"namespace", n.empty() ? json(nullptr) : json(n)},
                  {"session_id", s.empty() ? json(nullptr) : json(s)}});
  save({{"cell", "c2"}, {"layer", "working"}, {"actor", "alice"}, {"namespace", "n1"}});

  for (json f : {filter("c1", "alice", "n1"), filter("c1", "bob", "", "s1"), filter("c1", "alice")})
    for (std::string layer : {"working", "consensus"}) {
      std::vector<std::string> before_all = ids_of(list_all(filter("c1"), layer));
      std::vector<std::string> listed = ids_of(list_all(f, layer));
      json counts = count(filter("c1"));
      EXPECT_EQ(clear_layer(f, layer)["deleted"], listed.size()) << f << layer;
      EXPECT_TRUE(list_all(f, layer).empty());
      std::vector<std::string> after_all = ids_of(list_all(filter("c1"), layer));
      // Whatever was not listed is still there.
      std::vector<std::string> survivors;
      for (const std::string& id : before_all)
        if (std::find(listed.begin(), listed.end(), id) == listed.end()) survivors.push_back(id);
      EXPECT_EQ(after_all, survivors) << f << layer;
      EXPECT_EQ(count(filter("c1"))[layer],
                counts[layer].get<int>() - static_cast<int>(listed.size()));
    }
  EXPECT_EQ(count(filter("c2"))["working"], 1);
}

// An owner narrows a clear to what that actor wrote, in a shared layer too, where the
// reader's actor does not narrow.
TEST_F(MemoryTest, ClearLayerWithAnOwnerTakesOnlyThatActorsEntries) {
  for (const std::string& layer : {std::string("consensus"), std::string("working")})
    for (const char* actor : {"alice", "bob", "bob"}) save({{"layer", layer}, {"actor", actor}});
  json bob = filter("c1", "bob");
  EXPECT_EQ(call(table().clear_layer, with(bob, {{"layer", "consensus"}, {"owner", "bob"}})),
            json({{"deleted", 2}}));
  EXPECT_EQ(count(filter("c1", "alice"))["consensus"], 1);
  EXPECT_EQ(call(table().clear_layer, with(bob, {{"layer", "working"}, {"owner", "bob"}})),
            json({{"deleted", 2}}));
  EXPECT_EQ(count(filter("c1", "alice"))["working"], 1);
  EXPECT_EQ(clear_layer(bob, "consensus")["deleted"], 1) << "no owner: as the listing shows";
}

// An entry of another layer may name the session it was learnt in: it is another
// actor's, or the cell's shared knowledge, and outlives the session.
TEST_F(MemoryTest, DeleteBySessionRemovesThatSessionsSessionLayerEntriesOnly) {
  std::vector<std::pair<std::string, std::string>> kept;  // (cell, id)
  for (const std::string& layer : kLayers) {
    const bool goes = layer == "session";
    for (const char* actor : {"alice", "bob"}) {
      json entry = save({{"layer", layer}, {"actor", actor}, {"session_id", "s1"}});
      if (!goes) kept.emplace_back("c1", entry["id"]);
    }
    kept.emplace_back("c1", save({{"layer", layer}, {"session_id", "s2"}})["id"]);
    kept.emplace_back("c1", save({{"layer", layer}})["id"]);
    kept.emplace_back("c2", save({{"cell", "c2"}, {"layer", layer}, {"session_id", "s1"}})["id"]);
  }
  EXPECT_EQ(delete_by_session("c1", "s1"), json({{"deleted", 2}}));
  EXPECT_EQ(delete_by_session("c1", "s1")["deleted"], 0);
  for (const std::string& layer : kLayers) {
    const int left = layer == "session" ? 0 : 2;
    EXPECT_EQ(count(filter("c1", "", "", "s1"))[layer], left) << layer;
    EXPECT_EQ(count(filter("c1"))[layer], left + 2) << layer;
    EXPECT_EQ(count(filter("c2", "", "", "s1"))[layer], 1) << layer;
  }
  for (const auto& [cell, id] : kept) EXPECT_NO_THROW(get(filter(cell), id));
  json left = search(filter("c1", "", "", "s1"), "content")["data"];
  for (const json& hit : left) EXPECT_NE(hit["entry"]["layer"], "session") << hit;
  EXPECT_FALSE(left.empty());
}

}  // namespace
}  // namespace agentrt::test
