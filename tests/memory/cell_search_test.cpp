// Search is per cell and per caller: a search's hits and scores depend only on the
// entries its caller may see in its cell, whether its terms are walked among all cells'
// matches or through the cell's tag.
#include "memory_fixture.h"

#include "connection.h"
#include "requests.h"
#include "search.h"

#include <algorithm>
#include <random>

namespace agentrt::test {
namespace {

// Window 5. c1 saves two "common" entries and `c1_others` without the word, then c2
// saves `c2_newer` newer entries with it. Returns c1's two ids, sorted.
class CellWindowTest : public MemoryTest {
 protected:
  std::vector<std::string> bury(int c1_others, int c2_newer) {
    open({{"search_candidates", 5}});
    std::vector<std::string> ids = {save({{"cell", "c1"}, {"content", "common word"}})["id"],
                                    save({{"cell", "c1"}, {"content", "common pelican"}})["id"]};
    for (int i = 0; i < c1_others; ++i)
      save({{"cell", "c1"}, {"content", "other " + std::to_string(i)}});
    for (int i = 0; i < c2_newer; ++i)
      save({{"cell", "c2"}, {"content", "common word " + std::to_string(i)}});
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  std::vector<std::string> sorted_hits(const std::string& cell, const std::string& query) {
    std::vector<std::string> ids = ids_of(search(filter(cell), query, nullptr, 100)["data"]);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

// A cell's search reads that cell's matches only: another tenant's newer entries
// cannot push its own out of the window.
TEST_F(CellWindowTest, AnotherCellsNewerMatchesDoNotCrowdACellsOwnOut) {
  std::vector<std::string> c1 = bury(0, 30);
  EXPECT_EQ(sorted_hits("c1", "common"), c1);
  // c2 keeps its own bound, and none of c1's entries leak into it.
  std::vector<std::string> c2 = sorted_hits("c2", "common");
  EXPECT_EQ(c2.size(), 5u);
  for (const std::string& id : c1) EXPECT_EQ(std::count(c2.begin(), c2.end(), id), 0);
}

// A cell big enough for the shared walk, whose term's newest matches are all another
// cell's: the walk's limit ends it before the cell's window fills, and the tagged walk
// finds the cell's own.
TEST_F(CellWindowTest, ADenseCellStillFindsWhatAnotherCellsNewerMatchesBury) {
  // c1 holds 15 of 55 entries (27%): its shared walk reads at most 2 * 5 / 0.27 + 1 = 37
  // matches, fewer than c2's 40.
  std::vector<std::string> c1 = bury(13, 40);
  EXPECT_EQ(sorted_hits("c1", "common"), c1);
}

// An actor's search reads the matches of its own scope only, the cell's shared entries
// and its own: another actor's newer private entries cannot push them out of the
// window, nor take a place in it.
TEST_F(MemoryTest, AnotherActorsPrivateMatchesDoNotCrowdAnActorsOwnOut) {
  open({{"search_candidates", 5}});
  json own = save({{"actor", "alice"}, {"content", "common word"}});
  json shared = save({{"actor", "bob"}, {"layer", "consensus"}, {"content", "common ground"}});
  for (int i = 0; i < 30; ++i)
    save({{"actor", "bob"},
          {"layer", kLayers[static_cast<size_t>(2 + i % 5)]},
          {"content", "common word " + std::to_string(i)}});
  std::vector<std::string> want = {own["id"], shared["id"]};
  std::sort(want.begin(), want.end());
  std::vector<std::string> got = ids_of(search(filter("c1", "alice"), "common")["data"]);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  // Bob's window is his newest five; an admin without an actor reads the whole cell's.
  for (const json& f : {filter("c1", "bob"), filter("c1")}) {
    got = ids_of(search(f, "common", nullptr, 100)["data"]);
    EXPECT_EQ(got.size(), 5u);
    EXPECT_EQ(std::count(got.begin(), got.end(), own["id"]), 0);
  }
  // Alice's own entries in every layer are hers to find, however many bob has.
  json working = save({{"actor", "alice"}, {"layer", "working"}, {"content", "common task"}});
  for (int i = 0; i < 30; ++i) save({{"actor", "bob"}, {"content", "common again"}});
  EXPECT_EQ(search(filter("c1", "alice"), "common")["data"].size(), 3u);
  (void)working;
}

// A search of the shared layers alone reads the cell's shared entries only, and one of
// an actor's own layers alone reads that actor's entries only: the caller's other kind
// of entry takes no place in the window either. (The kinds are the scope's grain: a
// search of consensus alone still shares its window with environment.)
TEST_F(MemoryTest, ASearchOfOneKindOfLayerReadsThatKindOnly) {
  open({{"search_candidates", 5}});
  auto hits = [&](const json& f, const json& layers) {
    return ids_of(search(f, "common", layers, 100)["data"]);
  };
  // c1: a shared entry, then 20 newer of alice's own.
  json shared = save({{"actor", "bob"}, {"layer", "consensus"}, {"content", "common ground"}});
  for (int i = 0; i < 20; ++i)
    save({{"actor", "alice"},
          {"layer", "working"},
          {"content", "common task " + std::to_string(i)}});
  EXPECT_EQ(hits(filter("c1", "alice"), json::array({"consensus"})),
            std::vector<std::string>{shared["id"]});
  EXPECT_EQ(hits(filter("c1"), json::array({"environment", "consensus"})),
            std::vector<std::string>{shared["id"]});
  EXPECT_EQ(hits(filter("c1", "alice"), nullptr).size(), 5u);  // both kinds: one window
  // c2: one of alice's own, then 20 newer shared ones.
  json mine = save({{"cell", "c2"}, {"actor", "alice"}, {"content", "common mine"}});
  for (int i = 0; i < 20; ++i)
    save({{"cell", "c2"},
          {"actor", "bob"},
          {"layer", "environment"},
          {"content", "common env " + std::to_string(i)}});
  EXPECT_EQ(hits(filter("c2", "alice"), json::array({"about_me", "working"})),
            std::vector<std::string>{mine["id"]});
  EXPECT_EQ(hits(filter("c2", "alice"), json::array({"about_me", "environment"})).size(), 5u);
}

// Actor names that tokenize alike, or that an actor and cell name could spell together,
// stay apart in the index.
TEST_F(MemoryTest, ActorsWhoseNamesTokenizeAlikeStayApart) {
  json dash = save({{"cell", "c1"}, {"actor", "ann-lee"}, {"content", "falcon"}});
  json space = save({{"cell", "c1"}, {"actor", "ann lee"}, {"content", "falcon"}});
  json moved = save({{"cell", "c1a"}, {"actor", "nn-lee"}, {"content", "falcon"}});
  EXPECT_EQ(ids_of(search(filter("c1", "ann-lee"), "falcon")["data"]),
            std::vector<std::string>{dash["id"]});
  EXPECT_EQ(ids_of(search(filter("c1", "ann lee"), "falcon")["data"]),
            std::vector<std::string>{space["id"]});
  EXPECT_EQ(ids_of(search(filter("c1a", "nn-lee"), "falcon")["data"]),
            std::vector<std::string>{moved["id"]});
  EXPECT_TRUE(search(filter("c1", "ann"), "falcon")["data"].empty());
}

// FTS5 keeps a word's first 32 KB only, so names longer than about 16 KB (their hex
// doubles them) can share a scope word. Such names share a window; each match's cell
// and actor are still checked exactly, so neither sees the other's entries.
TEST_F(MemoryTest, NamesTooLongForOneIndexWordStillStayApart) {
  const std::string prefix(20000, 'x');
  json a = save({{"cell", prefix + "1"}, {"actor", prefix + "a"}, {"content", "falcon"}});
  json b = save({{"cell", prefix + "1"}, {"actor", prefix + "b"}, {"content", "falcon"}});
  json c = save({{"cell", prefix + "2"}, {"actor", prefix + "a"}, {"content", "falcon"}});
  EXPECT_EQ(ids_of(search(filter(prefix + "1", prefix + "a"), "falcon")["data"]),
            std::vector<std::string>{a["id"]});
  EXPECT_EQ(ids_of(search(filter(prefix + "1", prefix + "b"), "falcon")["data"]),
            std::vector<std::string>{b["id"]});
  EXPECT_EQ(ids_of(search(filter(prefix + "2"), "falcon")["data"]),
            std::vector<std::string>{c["id"]});
}

std::vector<double> scores_of(const json& result) {
  std::vector<double> out;
  for (const json& hit : result["data"]) out.push_back(hit["score"]);
  return out;
}

// BM25's statistics (rows, a term's rows, the average length) are the cell's own: a
// score says nothing about what other tenants stored, and a cell ranks as it would
// alone in the store.
TEST_F(MemoryTest, ACellsScoresDependOnItsOwnEntriesOnly) {
  auto fill = [&](const std::string& cell) {
    save({{"cell", cell}, {"content", "kestrel over the heron marsh"}});
    save({{"cell", cell}, {"content", "heron"}});
    save({{"cell", cell}, {"content", "a long note about the kestrel nest and its eggs"}});
    save({{"cell", cell}, {"content", "grocery list"}});
  };
  fill("c1");
  json before = search(filter("c1"), "kestrel heron");
  ASSERT_EQ(before["data"].size(), 3u);
  // Another cell: many entries, some with the same words, of other lengths.
  for (int i = 0; i < 200; ++i) {
    std::string words = i % 3 == 0 ? "kestrel" : i % 3 == 1 ? "heron heron" : "sparrow";
    for (int filler = 0; filler < i % 7; ++filler) words += " filler";
    save({{"cell", "c2"}, {"content", words + " " + std::to_string(i)}});
  }
  json after = search(filter("c1"), "kestrel heron");
  EXPECT_EQ(ids_of(after["data"]), ids_of(before["data"]));
  EXPECT_EQ(scores_of(after), scores_of(before));
  // The same entries in a third cell score exactly as c1's did.
  fill("c3");
  EXPECT_EQ(scores_of(search(filter("c3"), "kestrel heron")), scores_of(before));
  // Removing c2's entries changes nothing either.
  clear_layer(filter("c2"), "about_me");
  EXPECT_EQ(scores_of(search(filter("c1"), "kestrel heron")), scores_of(before));
}

// BM25's statistics are those of the entries the search may return: another actor's
// private entries, or entries outside the namespace asked for, move no score.
TEST_F(MemoryTest, ACallersScoresDependOnWhatItMaySeeOnly) {
  save({{"content", "kestrel over the heron marsh"}});
  save({{"content", "heron"}});
  save({{"layer", "consensus"}, {"actor", "bob"}, {"content", "a kestrel nest and eggs"}});
  save({{"layer", "agent_memory"}, {"namespace", "n1"}, {"content", "heron kestrel heron"}});
  save({{"layer", "agent_memory"}, {"namespace", "n1"}, {"content", "kestrel"}});
  json alice = filter("c1", "alice"), alice_n1 = filter("c1", "alice", "n1");
  json before = search(alice, "kestrel heron"), before_n1 = search(alice_n1, "kestrel heron");
  ASSERT_EQ(before["data"].size(), 5u);
  ASSERT_EQ(before_n1["data"].size(), 2u);
  for (int i = 0; i < 60; ++i) {
    std::string words = i % 2 ? "kestrel" : "heron heron marsh";
    for (int filler = 0; filler < i % 5; ++filler) words += " filler";
    save({{"actor", "bob"}, {"layer", i % 3 ? "about_me" : "working"}, {"content", words}});
  }
  EXPECT_EQ(search(alice, "kestrel heron"), before);
  // Alice's own entries outside n1 count for her whole search, not for one within n1.
  save({{"content", "kestrel heron kestrel"}});
  EXPECT_EQ(search(alice_n1, "kestrel heron"), before_n1);
  EXPECT_NE(scores_of(search(alice, "kestrel heron")), scores_of(before));
}

// The index knows each entry's cell by a word of its own column; content that spells
// that word is content, never a cell.
TEST_F(MemoryTest, CellsWhoseNamesTokenizeAlikeStayApart) {
  json dash = save({{"cell", "acme-prod"}, {"content", "falcon"}});
  json under = save({{"cell", "acme_prod"}, {"content", "falcon"}});
  json space = save({{"cell", "acme prod"}, {"content", "falcon"}});
  json prefix = save({{"cell", "acme"}, {"content", "falcon"}});
  EXPECT_EQ(ids_of(search(filter("acme-prod"), "falcon")["data"]),
            std::vector<std::string>{dash["id"]});
  EXPECT_EQ(ids_of(search(filter("acme_prod"), "falcon")["data"]),
            std::vector<std::string>{under["id"]});
  EXPECT_EQ(ids_of(search(filter("acme prod"), "falcon")["data"]),
            std::vector<std::string>{space["id"]});
  EXPECT_EQ(ids_of(search(filter("acme"), "falcon")["data"]),
            std::vector<std::string>{prefix["id"]});
  // Words that look like the index's cell words, and the cells' own names, are searched
  // in the content only.
  json plain = save({{"cell", "c1"}, {"content", "alpha"}});
  json spelled = save({{"cell", "c1"}, {"content", "c6331 acme prod"}});
  for (std::string q : {"c6331", "C6331", "acme", "prod", "cell_tag", "c1"}) {
    std::vector<std::string> want;
    if (q != "cell_tag" && q != "c1") want.push_back(spelled["id"]);
    EXPECT_EQ(ids_of(search(filter("c1"), q)["data"]), want) << q;
  }
  (void)plain;
}

// 600 entries over four cells of every share, every layer, two actors, a namespace and
// a session, of words with a skewed spread (some capitalised or accented, which the
// index folds), and search_entries called directly with a chosen plan.
class MixedStoreTest : public MemoryTest {
 protected:
  const std::vector<std::string> cells = {"big", "mid", "small", "tiny"};

  void fill() {
    std::mt19937 rng(11);
    std::discrete_distribution<size_t> cell_of({60, 25, 12, 3});
    std::discrete_distribution<int> word_of({30, 15, 10, 6, 4, 3, 2, 1, 1, 1});
    const std::vector<std::string> spellings = {"w", "W", "w", "w"};
    auto word = [&] {
      int n = word_of(rng);
      if (n == 9) return std::string(rng() % 2 ? "Café" : "cafe");
      return spellings[rng() % spellings.size()] + std::to_string(n);
    };
    for (int i = 0; i < 600; ++i) {
      std::string content = word();
      for (int n = std::uniform_int_distribution<int>(0, 6)(rng); n > 0; --n)
        content += " " + word();
      save({{"cell", cells[cell_of(rng)]},
            {"layer", kLayers[std::uniform_int_distribution<size_t>(0, 6)(rng)]},
            {"actor", i % 3 ? "alice" : "bob"},
            {"namespace", i % 4 ? json(nullptr) : json("n1")},
            {"session_id", i % 5 ? json(nullptr) : json("s1")},
            {"content", content}});
    }
    reader_ = memory_sqlite::open_reader(db_path());
  }

  std::vector<std::pair<std::string, double>> hits(const json& request, int candidates,
                                                   const memory_sqlite::SearchPlan& plan) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& hit : memory_sqlite::search_entries(
             *reader_, memory_sqlite::parse_search(request.dump()), candidates, plan))
      out.emplace_back(hit.row.id, hit.score);
    return out;
  }

  // Every cell, four filters, seven queries and four sets of layers.
  template <class Each>
  void for_each_request(Each each) {
    for (const std::string& cell : cells)
      for (const json& f : {filter(cell), filter(cell, "alice"), filter(cell, "bob", "n1"),
                            filter(cell, "", "", "s1")})
        for (std::string query : {"w0", "w1", "w5", "cafe", "w0 w3", "w2 w7 w8", "W0 w1 w2 w3 w4"})
          for (const json& layers :
               {json(nullptr), json::array({"consensus"}), json::array({"environment", "working"}),
                json::array({"about_me", "agent_memory", "session"})})
            each(with(f, {{"query", query}, {"layers", layers}, {"limit", 100}}));
  }

  std::unique_ptr<memory_sqlite::Connection> reader_;
};

// The two walks give the same hits and the same scores, bit for bit, over cells of every
// share, windows that fill and windows that do not, and every filter.
TEST_F(MixedStoreTest, TheSharedWalkAndTheTaggedWalkAgree) {
  fill();
  size_t compared = 0;
  for_each_request([&](const json& request) {
    auto shared = hits(request, 7, {0.0, 0}), tagged = hits(request, 7, {2.0, 0});
    EXPECT_EQ(shared, tagged) << request;
    compared += tagged.size();
  });
  EXPECT_GT(compared, 1000u);
}

// Reading the filtered entries whole gives what the walk gives wherever no window
// fills: the same hits, the same scores to the last bit (the tokenizer counts a word
// as the index does, folding included).
TEST_F(MixedStoreTest, ReadingAFilteredSetWholeAgreesWithTheWalk) {
  fill();
  size_t compared = 0;
  for_each_request([&](const json& request) {
    auto whole = hits(request, 100000, {memory_sqlite::kSharedWalkMinShare, 100000});
    auto walked = hits(request, 100000, {memory_sqlite::kSharedWalkMinShare, 0});
    EXPECT_EQ(whole, walked) << request;
    compared += walked.size();
  });
  EXPECT_GT(compared, 1000u);
}

// A session's few entries are read whole, so the scope's newer matches cannot crowd
// them out of its search (search_candidates 20: sets of at most 5 are read whole).
TEST_F(MemoryTest, ASessionsFewEntriesAreFoundHoweverManyNewerMatchTheScope) {
  open({{"search_candidates", 20}});
  std::vector<std::string> session;
  for (int i = 0; i < 3; ++i)
    session.push_back(save({{"layer", "session"},
                            {"session_id", "s1"},
                            {"content", "common note " + std::to_string(i)}})["id"]);
  for (int i = 0; i < 40; ++i) save({{"layer", "working"}, {"content", "common task"}});
  std::vector<std::string> got =
      ids_of(search(filter("c1", "alice", "", "s1"), "common", nullptr, 100)["data"]);
  std::sort(got.begin(), got.end());
  std::sort(session.begin(), session.end());
  EXPECT_EQ(got, session);
}

}  // namespace
}  // namespace agentrt::test
