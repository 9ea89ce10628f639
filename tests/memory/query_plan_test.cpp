// The statements behind count, list and clear_layer are key lookups or index range
// scans for every filter shape: never a scan of the table, never a sort. Checked with
// EXPLAIN QUERY PLAN on the store the plugin itself created.
#include "memory_fixture.h"

#include "filter_sql.h"
#include "fts_support.h"
#include "sqlite_db.h"

namespace agentrt::test {
namespace {

using memory_sqlite::Database;
using memory_sqlite::FilterShape;
using memory_sqlite::kFilterShapes;
using memory_sqlite::OpenMode;
using memory_sqlite::Statement;

class QueryPlanTest : public MemoryTest {
 protected:
  void SetUp() override {
    MemoryTest::SetUp();
    save({});  // the plugin has created the schema
    db = std::make_unique<Database>(db_path(), OpenMode::kReadOnly);
  }
  void TearDown() override {
    db.reset();
    MemoryTest::TearDown();
  }

  // The plan's detail lines, joined by " | ".
  std::string plan(const std::string& sql) {
    Statement s(*db, "EXPLAIN QUERY PLAN " + sql);
    std::string out;
    while (s.step()) out += (out.empty() ? "" : " | ") + s.column_text(3);
    return out;
  }

  std::unique_ptr<Database> db;
};

std::string describe(FilterShape s) {
  return std::string("actor=") + (s.actor ? "1" : "0") + " ns=" + (s.ns ? "1" : "0") +
         " session=" + (s.session ? "1" : "0");
}

// Without a session filter a count reads one tally by its full key: it never touches
// memory_entries, so its cost does not grow with the entries it counts.
TEST_F(QueryPlanTest, CountsWithoutASessionReadOneTallyByKey) {
  for (int key = 0; key < kFilterShapes; ++key) {
    FilterShape shape = FilterShape::from_key(key);
    if (shape.session) continue;
    std::string p = plan(memory_sqlite::count_sql(shape));
    EXPECT_EQ(p,
              "SEARCH memory_totals USING PRIMARY KEY "
              "(cell=? AND layer=? AND shape=? AND actor=? AND ns=?)")
        << describe(shape);
    EXPECT_EQ(p.find("memory_entries"), std::string::npos) << describe(shape) << ": " << p;
  }
}

TEST_F(QueryPlanTest, CountsWithASessionAreACoveringIndexRangeScan) {
  for (int key = 0; key < kFilterShapes; ++key) {
    FilterShape shape = FilterShape::from_key(key);
    if (!shape.session) continue;
    std::string p = plan(memory_sqlite::count_sql(shape));
    EXPECT_EQ(p.rfind("SEARCH memory_entries USING COVERING INDEX memory_by_session", 0), 0u)
        << describe(shape) << ": " << p;
    EXPECT_NE(p.find("(cell=? AND layer=? AND session_id=?"), std::string::npos) << p;
    EXPECT_EQ(p.find("SCAN"), std::string::npos) << p;
    EXPECT_EQ(p.find('|'), std::string::npos) << p;
  }
}

// A search's statistics are read as a count reads them: a tally by its key, or with a
// session filter that session's range of memory_by_session (its rows for their tokens).
TEST_F(QueryPlanTest, SearchStatisticsAreReadAsCountsAre) {
  for (int key = 0; key < kFilterShapes; ++key) {
    FilterShape shape = FilterShape::from_key(key);
    std::string p = plan(memory_sqlite::visible_stats_sql(shape));
    if (!shape.session) {
      EXPECT_EQ(p, plan(memory_sqlite::count_sql(shape))) << describe(shape);
      continue;
    }
    EXPECT_EQ(p.rfind("SEARCH memory_entries USING INDEX memory_by_session", 0), 0u)
        << describe(shape) << ": " << p;
    EXPECT_NE(p.find("(cell=? AND layer=? AND session_id=?"), std::string::npos) << p;
    EXPECT_EQ(p.find("SCAN"), std::string::npos) << p;
  }
}

TEST_F(QueryPlanTest, ListsWalkAnIndexInOrderWithoutSorting) {
  for (int key = 0; key < kFilterShapes; ++key) {
    FilterShape shape = FilterShape::from_key(key);
    std::string p = plan(memory_sqlite::list_sql(shape));
    EXPECT_EQ(p.rfind("SEARCH memory_entries USING INDEX memory_by_", 0), 0u)
        << describe(shape) << ": " << p;
    EXPECT_EQ(p.find("TEMP B-TREE"), std::string::npos) << p;
    EXPECT_EQ(p.find("SCAN"), std::string::npos) << p;
    // The cursor is part of the range, not a filter applied row by row.
    EXPECT_TRUE(p.find("rowid<?") != std::string::npos || p.find("seq<?") != std::string::npos)
        << p;
  }
}

TEST_F(QueryPlanTest, ClearLayerFindsItsRowsThroughAnIndex) {
  for (int key = 0; key < kFilterShapes; ++key) {
    std::string p = plan(memory_sqlite::clear_sql(FilterShape::from_key(key)));
    EXPECT_EQ(p.rfind("SEARCH memory_entries USING", 0), 0u) << p;
    EXPECT_EQ(p.find("SCAN"), std::string::npos) << p;
  }
}

TEST_F(QueryPlanTest, SearchWalksTheFtsIndexAndLooksEntriesUpByKey) {
  memory_sqlite::register_term_stat_function(*db);
  std::string p = plan(memory_sqlite::search_term_sql());
  // The FTS walk is the outer loop (ordered by rowid inside FTS5, no sort), and each
  // candidate is one lookup in the narrow covering index, never in the wide table.
  EXPECT_NE(p.find("SCAN memory_fts VIRTUAL TABLE"), std::string::npos) << p;
  EXPECT_NE(p.find("SEARCH e USING COVERING INDEX memory_by_seq (seq=?)"), std::string::npos) << p;
  EXPECT_EQ(p.find("TEMP B-TREE"), std::string::npos) << p;
  EXPECT_LT(p.find("memory_fts"), p.find("SEARCH e")) << p;
}

TEST_F(QueryPlanTest, ACellsSeqRangeIsOneEdgeLookupPerLayer) {
  std::string p = plan(memory_sqlite::layer_seq_ranges_sql(false));
  EXPECT_EQ(p.find("SCAN memory_entries"), std::string::npos) << p;
  size_t edges = 0;
  for (size_t at = p.find(
           "SEARCH memory_entries USING COVERING INDEX memory_by_layer (cell=? AND layer=?)");
       at != std::string::npos;
       at = p.find("SEARCH memory_entries USING COVERING INDEX memory_by_layer", at + 1))
    ++edges;
  EXPECT_EQ(edges, 14u) << p;
}

// An actor's scope: the shared layers' edges in memory_by_layer, its own layers' in
// memory_by_actor, where seq follows the actor.
TEST_F(QueryPlanTest, AnActorsScopeSeqRangeIsOneEdgeLookupPerLayer) {
  std::string p = plan(memory_sqlite::layer_seq_ranges_sql(true));
  EXPECT_EQ(p.find("SCAN memory_entries"), std::string::npos) << p;
  auto count = [&p](const std::string& what) {
    size_t n = 0;
    for (size_t at = p.find(what); at != std::string::npos; at = p.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("SEARCH memory_entries USING COVERING INDEX memory_by_layer (cell=? AND "
                  "layer=?)"),
            4u)
      << p;
  EXPECT_EQ(count("SEARCH memory_entries USING COVERING INDEX memory_by_actor (cell=? AND "
                  "layer=? AND actor=?)"),
            10u)
      << p;
}

}  // namespace
}  // namespace agentrt::test
