// The tallies behind counts without a session filter (memory_totals, kept by
// triggers): after every kind of write the counts still equal the paged lists and the
// tallies equal a recount of the entries.
#include "count_check.h"

#include <random>

namespace agentrt::test {
namespace {

const std::vector<std::string> kCells = {"c1", "c2", "c3"};  // no saves go to c3
const std::vector<std::string> kActors = {"", "a1", "a2", "a3", "nobody"};
const std::vector<std::string> kNamespaces = {"", "n1", "n2", "n3"};
const std::vector<std::string> kSessions = {"", "s1", "s2"};

class TotalsTest : public CountCheckTest {
 protected:
  struct Saved {
    std::string cell, id;
  };

  // About 1200 entries over two cells, every layer, three actors, namespaces and
  // sessions, each of the last two also null.
  void populate() {
    std::mt19937 rng(5);
    auto pick = [&](const std::vector<std::string>& from) {
      return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
    };
    auto nullable = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    for (int i = 0; i < 1200; ++i) {
      std::string cell = pick({"c1", "c2"});
      std::string words = "entry";  // 1 to 9 tokens: the cells' token totals differ
      for (int w = 0; w < i % 9; ++w) words += " w";
      json e = save({{"cell", cell},
                     {"layer", pick(kLayers)},
                     {"actor", pick({"a1", "a2", "a3"})},
                     {"namespace", nullable(pick({"", "n1", "n2"}))},
                     {"session_id", nullable(pick({"", "s1", "s2", "s3"}))},
                     {"content", words}});
      saved.push_back({cell, e["id"]});
    }
    std::shuffle(saved.begin(), saved.end(), rng);
  }

  void expect_exact(const std::string& after) {
    SCOPED_TRACE(after);
    EXPECT_EQ(totals_drift(), 0);
    EXPECT_EQ(fts_drift(), 0);
    expect_counts_equal_lists(kCells, kActors, kNamespaces, kSessions);
  }

  std::vector<Saved> saved;
};

TEST_F(TotalsTest, CountsStayExactThroughSavesAndEveryKindOfDelete) {
  populate();
  expect_exact("saves");

  for (int i = 0; i < 100; ++i, saved.pop_back())
    ASSERT_EQ(remove(filter(saved.back().cell), saved.back().id)["deleted"], 1);
  expect_exact("deletes by id");

  // Every filter shape, each on a shared layer (where the actor filter does not apply)
  // and on a personal one.
  int cleared = 0;
  for (int key = 0; key < 8; ++key) {
    json f = filter("c1", (key & 1) ? "a1" : "", (key & 2) ? "n1" : "", (key & 4) ? "s1" : "");
    for (const std::string& layer :
         {kLayers[static_cast<size_t>(key % 2)], kLayers[static_cast<size_t>(2 + key % 5)]})
      cleared += clear_layer(f, layer)["deleted"].get<int>();
  }
  EXPECT_GT(cleared, 100);
  expect_exact("clear layer");

  EXPECT_GT(delete_by_session("c2", "s2")["deleted"], 0);
  expect_exact("delete by session");

  for (std::string cell : {"c1", "c2"})
    for (const std::string& layer : kLayers) clear_layer(filter(cell), layer);
  // A tally at zero goes: an emptied store keeps no actor or namespace names.
  EXPECT_EQ(totals_rows(), 0);
  expect_exact("everything cleared");
}

TEST_F(TotalsTest, NullAndEmptyNamespacesAreDifferentFilters) {
  for (const json& ns : {json(nullptr), json(""), json("n")}) {
    save({{"layer", "about_me"}, {"actor", "alice"}, {"namespace", ns}});
    save({{"layer", "consensus"}, {"actor", "bob"}, {"namespace", ns}});
  }
  struct Case {
    json filter;
    int about_me, consensus;
  };
  const Case cases[] = {{filter("c1"), 3, 3},
                        {filter("c1", "alice"), 3, 3},
                        {filter("c1", "bob"), 0, 3},  // consensus is shared
                        {with(filter("c1"), {{"namespace", ""}}), 1, 1},
                        {with(filter("c1", "alice"), {{"namespace", ""}}), 1, 1},
                        {with(filter("c1", "bob"), {{"namespace", "n"}}), 0, 1},
                        {filter("c1", "alice", "n"), 1, 1},
                        {filter("c1", "", "other"), 0, 0}};
  for (const Case& c : cases) {
    json counts = count(c.filter);
    EXPECT_EQ(counts["about_me"], c.about_me) << c.filter;
    EXPECT_EQ(counts["consensus"], c.consensus) << c.filter;
    EXPECT_EQ(counts["about_me"], list_all(c.filter, "about_me").size()) << c.filter;
    EXPECT_EQ(counts["consensus"], list_all(c.filter, "consensus").size()) << c.filter;
  }
  EXPECT_EQ(totals_drift(), 0);
}

// No statement of the plugin moves an entry between cells, layers, actors or
// namespaces; the update trigger keeps the tallies right should one ever do so.
TEST_F(TotalsTest, AnUpdateOfTheFilteredColumnsMovesTheEntryBetweenTallies) {
  populate();
  memory.reset();
  {
    memory_sqlite::Database db(db_path(), memory_sqlite::OpenMode::kReadWrite);
    db.exec(R"sql(
UPDATE memory_entries SET layer = 1 WHERE layer = 2 AND actor = 'a1';
UPDATE memory_entries SET layer = 3 WHERE layer = 0 AND namespace = 'n1';
UPDATE memory_entries SET actor = 'a3' WHERE actor = 'a2' AND seq % 3 = 0;
UPDATE memory_entries SET namespace = NULL WHERE namespace = 'n2' AND seq % 2 = 0;
UPDATE memory_entries SET namespace = 'n3' WHERE namespace IS NULL AND seq % 5 = 0;
UPDATE memory_entries SET cell = 'c3' WHERE cell = 'c2' AND layer = 5;
UPDATE memory_entries SET layer = layer, content = content || ' again' WHERE seq % 7 = 0;
)sql");
  }
  open();
  expect_exact("updates");
}

}  // namespace
}  // namespace agentrt::test
