// Search: BM25 ranking, filters and layers, user text that is never FTS syntax, and
// the bounded candidate walk.
#include "memory_fixture.h"

#include "bm25.h"
#include "search.h"

#include <random>

namespace agentrt::test {
namespace {

namespace bm25 = memory_sqlite::bm25;

std::vector<std::string> contents_of(const json& result) {
  std::vector<std::string> out;
  for (const json& hit : result["data"]) out.push_back(hit["entry"]["content"]);
  return out;
}

TEST(MemoryBm25, WeightsBehaveLikeBm25) {
  EXPECT_GT(bm25::idf(1000, 1), bm25::idf(1000, 10));
  EXPECT_GT(bm25::idf(1000, 10), bm25::idf(1000, 900));
  EXPECT_GT(bm25::idf(1000, 1000), 0.0);  // never negative, even in every row
  EXPECT_GT(bm25::term_weight(3, 10, 10), bm25::term_weight(1, 10, 10));
  EXPECT_GT(bm25::term_weight(1, 5, 10), bm25::term_weight(1, 50, 10));
  EXPECT_LT(bm25::term_weight(1000, 10, 10), bm25::kK1 + 1);  // saturates
  // 100 matches seen in the newest tenth of the seq range: about 1000 in all.
  EXPECT_EQ(bm25::estimate_df(100, 901, 1, 1000, 5000), 1000);
  EXPECT_EQ(bm25::estimate_df(100, 1, 1, 1000, 5000), 100);   // the walk saw everything
  EXPECT_EQ(bm25::estimate_df(100, 991, 1, 1000, 500), 500);  // never above the row count
}

TEST(MemorySearchBudget, AQueryReadsAtMostFourWindowsHoweverLong) {
  using memory_sqlite::candidates_per_term;
  EXPECT_EQ(candidates_per_term(2000, 1), 2000);
  EXPECT_EQ(candidates_per_term(2000, 4), 2000);
  EXPECT_EQ(candidates_per_term(2000, 8), 1000);
  EXPECT_EQ(candidates_per_term(2000, 16), 500);
  EXPECT_EQ(candidates_per_term(2000, 1000), 500);  // never below a quarter window
  EXPECT_EQ(candidates_per_term(1, 16), 1);
  for (size_t terms = 1; terms <= memory_sqlite::kMaxQueryTerms; ++terms)
    EXPECT_LE(candidates_per_term(2000, terms) * static_cast<int>(terms), 4 * 2000) << terms;
}

TEST_F(MemoryTest, RanksEntriesMatchingMoreAndRarerTermsFirst) {
  for (int i = 0; i < 20; ++i) save({{"content", "weekly meeting notes " + std::to_string(i)}});
  save({{"content", "zanzibar meeting notes"}});
  save({{"content", "zanzibar travel plans"}});
  save({{"content", "grocery list milk eggs"}});
  json result = search(filter("c1", "alice"), "Zanzibar meeting", nullptr, 5);
  std::vector<std::string> got = contents_of(result);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], "zanzibar meeting notes");
  EXPECT_EQ(got[1], "zanzibar travel plans");  // the rare term outweighs the common one
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_GE(result["data"][i - 1]["score"].get<double>(),
              result["data"][i]["score"].get<double>());
    EXPECT_GT(result["data"][i]["score"].get<double>(), 0.0);
  }
  for (const std::string& c : got) EXPECT_NE(c, "grocery list milk eggs");
}

TEST_F(MemoryTest, RepeatedTermsAndShorterEntriesRankHigher) {
  save({{"content", "python tips and a long tail of unrelated words about many other things"}});
  save({{"content", "python python python"}});
  save({{"content", "python notes"}});
  std::vector<std::string> got = contents_of(search(filter("c1"), "python"));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "python python python");
  EXPECT_EQ(got[2], "python tips and a long tail of unrelated words about many other things");
}

TEST_F(MemoryTest, SearchFoldsCaseAndDiacriticsLikeTheIndex) {
  json e = save({{"content", "Café Crème at Zoë's"}});
  for (std::string q : {"cafe", "CAFÉ", "creme", "zoe", "ZOË"}) {
    EXPECT_EQ(ids_of(search(filter("c1"), q)["data"]), std::vector<std::string>{e["id"]}) << q;
  }
}

TEST_F(MemoryTest, SearchRespectsLayersAndLimit) {
  json w = save({{"layer", "working"}, {"content", "falcon"}});
  json a = save({{"layer", "about_me"}, {"content", "falcon"}});
  json c = save({{"layer", "consensus"}, {"actor", "bob"}, {"content", "falcon"}});
  json f = filter("c1", "alice");
  EXPECT_EQ(ids_of(search(f, "falcon", {"working"})["data"]), std::vector<std::string>{w["id"]});
  EXPECT_EQ(search(f, "falcon", {"working", "consensus"})["data"].size(), 2u);
  EXPECT_EQ(search(f, "falcon", json::array())["data"].size(), 0u);
  EXPECT_EQ(search(f, "falcon")["data"].size(), 3u);
  EXPECT_EQ(search(f, "falcon", nullptr, 1)["data"].size(), 1u);
  json hit = search(f, "falcon", {"about_me"})["data"][0];
  EXPECT_EQ(hit["entry"], get(f, a["id"]));
  EXPECT_TRUE(hit["score"].is_number());
  (void)c;
}

TEST_F(MemoryTest, RemovedAndClearedEntriesLeaveTheIndex) {
  json gone = save({{"content", "ephemeral heron"}});
  save({{"layer", "working"}, {"content", "ephemeral heron"}});
  json stays = save({{"layer", "session"}, {"content", "ephemeral heron"}});
  remove(filter("c1"), gone["id"]);
  clear_layer(filter("c1"), "working");
  EXPECT_EQ(ids_of(search(filter("c1"), "heron")["data"]), std::vector<std::string>{stays["id"]});
}

TEST_F(MemoryTest, HostileQueriesAreWordsNeverSyntax) {
  json e = save({{"content", "alpha beta gamma content"}});
  std::string big;
  std::mt19937 rng(7);
  const char* pieces[] = {"alpha ", "\" ", "NEAR( ", "* ", "-x ", ": ", "' ", "OR ", "( ", "^ "};
  while (big.size() < 10 * 1024) big += pieces[rng() % 10];
  for (std::string q :
       {std::string("\"alpha"), std::string("NEAR(alpha beta"), std::string("alpha*"),
        std::string("alpha OR"), std::string("-alpha"), std::string("content:alpha"),
        std::string("alpha'"), std::string("🎉 alpha 🎉"), std::string("{content}: alpha"),
        std::string("alpha AND NOT beta"), std::string("alpha + beta"), std::string("((alpha"),
        std::string("alpha^beta"), std::string("al\"pha\" alpha"), std::string("alpha\0x", 7),
        big}) {
    json result;
    ASSERT_NO_THROW(result = search(filter("c1"), q)) << q.substr(0, 40);
    EXPECT_EQ(ids_of(result["data"]), std::vector<std::string>{e["id"]}) << q.substr(0, 40);
  }
  // Operators are searched as the words they are.
  json ops = save({{"content", "near and or not"}});
  EXPECT_EQ(ids_of(search(filter("c1"), "NEAR")["data"]), std::vector<std::string>{ops["id"]});
  EXPECT_EQ(ids_of(search(filter("c1"), "NOT")["data"]), std::vector<std::string>{ops["id"]});
}

TEST_F(MemoryTest, QueriesWithoutWordsAreRefused) {
  save({});
  for (std::string q : {"", "   ", "\"", "*", "-", ":", "'", "🎉🎉", "()", "!!! ???", "\"\" * -"}) {
    Failure f = failure([&] { search(filter("c1"), q); });
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << q;
    EXPECT_EQ(f.message, "query has no searchable words") << q;
  }
}

TEST_F(MemoryTest, TheCandidateBoundCostsRecallButNeverTheFilter) {
  open({{"search_candidates", 5}});
  json old_c1 = save({{"content", "common word"}});
  json rare_c1 = save({{"content", "common pelican"}});
  for (int i = 0; i < 30; ++i) save({{"content", "common word " + std::to_string(i)}});
  save({{"actor", "bob"}, {"content", "common pelican"}});
  // The five newest matches of "common" alice may see are all newer than the two:
  // neither is found through it, and bob's private entry neither reaches alice nor
  // takes a place in her window.
  std::vector<std::string> got =
      ids_of(search(filter("c1", "alice"), "common", nullptr, 100)["data"]);
  EXPECT_EQ(got.size(), 5u);
  EXPECT_EQ(std::count(got.begin(), got.end(), rare_c1["id"]), 0);
  // A rarer term of the same query still finds the entry.
  EXPECT_EQ(ids_of(search(filter("c1", "alice"), "common pelican")["data"])[0], rare_c1["id"]);
  (void)old_c1;
}

}  // namespace
}  // namespace agentrt::test
