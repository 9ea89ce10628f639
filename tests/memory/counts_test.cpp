// Counts: all seven keys always, and each one equal to the length of the fully paged
// list for the same filter and layer, over a random population and every filter.
#include "memory_fixture.h"

#include <algorithm>
#include <map>
#include <random>

namespace agentrt::test {
namespace {

struct Saved {
  std::string id, cell, layer, actor, ns, session;  // empty = null
};

bool shared(const std::string& layer) {
  return layer == "environment" || layer == "consensus";
}

// The contract's visibility rule, written independently of the plugin.
bool visible(const Saved& e, const json& f) {
  auto matches = [](const json& want, const std::string& have) {
    return want.is_null() || (!have.empty() && want.get<std::string>() == have);
  };
  return e.cell == f["cell"] && (shared(e.layer) || matches(f["actor"], e.actor)) &&
         matches(f["namespace"], e.ns) && matches(f["session_id"], e.session);
}

// And "cache_s": only the host writes this store, so it may reuse counts for a minute
// until it writes the cell (core/memory/memory_totals_cache.h).
TEST_F(MemoryTest, CountsHaveAllSevenKeysEvenWhenEmptyAndAllowReuse) {
  json zero = {{"environment", 0}, {"consensus", 0}, {"about_me", 0}, {"agent_memory", 0},
               {"session", 0},     {"working", 0},   {"unknown", 0},  {"cache_s", 60}};
  EXPECT_EQ(count(filter("c1")), zero);
  save({{"layer", "working"}});
  json one = zero;
  one["working"] = 1;
  EXPECT_EQ(count(filter("c1")), one);
  EXPECT_EQ(count(filter("c1", "bob")), zero);
}

class CountPropertyTest : public MemoryTest {
 protected:
  // About 2000 entries over two cells, every layer, three actors, namespaces and
  // sessions (each also null), then some removed, so counts cannot line up by luck.
  void populate() {
    std::mt19937 rng(20261122);
    auto pick = [&](const std::vector<std::string>& from) {
      return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
    };
    const std::vector<std::string> cells = {"c1", "c2"}, actors = {"a1", "a2", "a3"},
                                   namespaces = {"", "n1", "n2", "n3"},
                                   sessions = {"", "s1", "s2", "s3"};
    for (int i = 0; i < 2000; ++i) {
      Saved e{"", pick(cells), pick(kLayers), pick(actors), pick(namespaces), pick(sessions)};
      json request = {{"cell", e.cell},
                      {"layer", e.layer},
                      {"actor", e.actor},
                      {"namespace", e.ns.empty() ? json(nullptr) : json(e.ns)},
                      {"session_id", e.session.empty() ? json(nullptr) : json(e.session)},
                      {"content", "entry " + std::to_string(i)}};
      if (e.layer == "unknown" && i % 2 == 0) request["requested_layer"] = "x" + std::to_string(i);
      e.id = save(request)["id"];
      population.push_back(e);
    }
    std::shuffle(population.begin(), population.end(), rng);
    for (int i = 0; i < 150; ++i) {
      remove(filter(population.back().cell), population.back().id);
      population.pop_back();
    }
  }

  std::vector<json> every_filter() const {
    std::vector<json> filters;
    for (std::string cell : {"c1", "c2"})
      for (std::string actor : {"", "a1", "a2", "a3", "nobody"})
        for (std::string ns : {"", "n1", "n2", "n3"})
          for (std::string session : {"", "s1", "s2", "s3"})
            filters.push_back(filter(cell, actor, ns, session));
    return filters;
  }

  std::vector<Saved> population;
};

TEST_F(CountPropertyTest, EveryCountEqualsTheFullyPagedListForEveryFilter) {
  populate();
  int checked = 0;
  for (const json& f : every_filter()) {
    json counts = count(f);
    ASSERT_EQ(counts.size(), 8u);  // the seven layers and "cache_s"
    for (const std::string& layer : kLayers) {
      std::vector<std::string> expected;
      for (const Saved& e : population)
        if (e.layer == layer && visible(e, f)) expected.push_back(e.id);
      // A page size that does not divide the layers evenly exercises the cursors too.
      std::vector<std::string> listed = ids_of(list_all(f, layer, 41));
      ASSERT_EQ(counts[layer], listed.size()) << f << " " << layer;
      std::sort(expected.begin(), expected.end());
      std::sort(listed.begin(), listed.end());
      ASSERT_EQ(listed, expected) << f << " " << layer;
      checked += static_cast<int>(listed.size());
    }
  }
  EXPECT_GT(checked, 10000);  // the filters really did see entries, not only zeros
}

}  // namespace
}  // namespace agentrt::test
