// Stores an older release left behind open with this plugin and upgrade in place:
// each is built by running only that release's migration steps and filling it with
// plain INSERTs, as that release's own statements would have.
#include "count_check.h"

#include "ids_and_time.h"
#include "schema.h"

#include <algorithm>
#include <filesystem>
#include <random>

namespace agentrt::test {
namespace {

using memory_sqlite::Database;
using memory_sqlite::OpenMode;
using memory_sqlite::Statement;
using memory_sqlite::StatementUse;

struct RawEntry {
  std::string cell;
  int layer = 2;
  std::string actor = "alice";
  std::string ns, session;  // empty = null
  std::string content = "old content";
  int tokens = 2;
};

std::optional<std::string> nullable(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

class UpgradeTest : public CountCheckTest {
 protected:
  // Replaces the store with an empty one at schema `version`; the plugin is closed.
  std::unique_ptr<Database> old_store(int64_t version) {
    memory.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path() + suffix);
    auto db = std::make_unique<Database>(db_path(), OpenMode::kReadWrite);
    memory_sqlite::migrate_to(*db, version);
    EXPECT_EQ(db->query_int("PRAGMA user_version"), version);
    return db;
  }

  static std::string insert(Database& db, const RawEntry& e) {
    Statement s(db,
                "INSERT INTO memory_entries(id, cell, layer, actor, namespace, session_id,"
                " content, metadata, token_count, created_at, updated_at)"
                " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, '{}', ?8, 0, 0)");
    StatementUse use(s);
    std::string id = memory_sqlite::new_entry_id();
    s.bind(1, id);
    s.bind(2, e.cell);
    s.bind(3, int64_t{e.layer});
    s.bind(4, e.actor);
    s.bind(5, nullable(e.ns));
    s.bind(6, nullable(e.session));
    s.bind(7, e.content);
    s.bind(8, int64_t{e.tokens});
    use->step();
    return id;
  }

  // The schema as sqlite_master spells it, one line per object, by name.
  std::string schema_text() const {
    Database db(db_path(), OpenMode::kReadOnly);
    Statement s(db,
                "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master"
                " WHERE name NOT LIKE 'sqlite_%' ORDER BY name");
    std::string text;
    while (s.step()) text += s.column_text(0) + "\n";
    return text;
  }
};

TEST_F(UpgradeTest, AStoreFromSchemaVersionOneIsUpgradedOnOpen) {
  std::string id;
  {
    auto db = old_store(1);
    id = insert(*db, {"c1", 2, "alice", "", "", "migrated kestrel"});
  }
  open();
  EXPECT_EQ(ids_of(search(filter("c1"), "kestrel")["data"]), std::vector<std::string>{id});
  EXPECT_EQ(count(filter("c1", "alice"))["about_me"], 1);
  Database db(db_path(), OpenMode::kReadOnly);
  EXPECT_EQ(db.query_int("PRAGMA user_version"), memory_sqlite::schema_version());
  EXPECT_EQ(db.query_int("SELECT count(*) FROM sqlite_master WHERE name = 'memory_by_seq'"), 1);
}

// Version 2 is the last release without memory_totals: opening it fills the tallies
// from the entries already there, and from then on the triggers keep them.
TEST_F(UpgradeTest, AStoreFromSchemaVersionTwoGetsExactTalliesOnOpen) {
  std::vector<std::pair<std::string, std::string>> ids;  // (cell, id)
  {
    auto db = old_store(2);
    std::mt19937 rng(7);
    auto pick = [&](const std::vector<std::string>& from) {
      return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
    };
    memory_sqlite::Transaction tx(*db, "BEGIN");
    for (int i = 0; i < 800; ++i) {
      RawEntry e{pick({"c1", "c2"}), std::uniform_int_distribution<int>(0, 6)(rng),
                 pick({"a1", "a2", "a3"}), pick({"", "n1", "n2"}), pick({"", "s1", "s2"})};
      ids.emplace_back(e.cell, insert(*db, e));
    }
    tx.commit();
  }
  open();
  EXPECT_EQ(totals_drift(), 0);
  const std::vector<std::string> cells = {"c1", "c2"}, actors = {"", "a1", "a2", "nobody"},
                                 namespaces = {"", "n1", "n2"}, sessions = {"", "s1"};
  EXPECT_GT(expect_counts_equal_lists(cells, actors, namespaces, sessions), 1000u);

  // The migrated tallies go on from where the fill left them.
  for (size_t i = 0; i < 100; ++i) remove(filter(ids[i].first), ids[i].second);
  for (int i = 0; i < 50; ++i) save({{"cell", "c2"}, {"actor", "a2"}, {"namespace", "n1"}});
  clear_layer(filter("c1", "a1"), "working");
  EXPECT_EQ(totals_drift(), 0);
  expect_counts_equal_lists(cells, actors, namespaces, sessions);
}

// Version 3 is the last release whose index mixed the cells: opening it reindexes each
// entry under its cell and fills the tallies' tokens from the entries.
TEST_F(UpgradeTest, AStoreFromSchemaVersionThreeSearchesEachCellOnItsOwn) {
  std::vector<std::string> c1_ids;
  {
    auto db = old_store(3);
    memory_sqlite::Transaction tx(*db, "BEGIN");
    for (int i = 0; i < 3; ++i) c1_ids.push_back(insert(*db, {"c1", 2, "alice", "", "", "common"}));
    for (int i = 0; i < 40; ++i) insert(*db, {"c2", 2, "alice", "", "", "common common"});
    for (int i = 0; i < 5; ++i) insert(*db, {"c3", 0, "bob", "n1", "s1", "other words"});
    tx.commit();
  }
  open({{"search_candidates", 10}});
  EXPECT_EQ(fts_drift(), 0);
  EXPECT_EQ(totals_drift(), 0);
  std::vector<std::string> got = ids_of(search(filter("c1"), "common")["data"]);
  std::sort(got.begin(), got.end());
  std::sort(c1_ids.begin(), c1_ids.end());
  EXPECT_EQ(got, c1_ids);  // not crowded out by c2's 40 newer matches
  EXPECT_EQ(search(filter("c2"), "common", nullptr, 100)["data"].size(), 10u);

  // The statistics go on from where the fill left them.
  save({{"cell", "c1"}, {"content", "common kestrel"}});
  clear_layer(filter("c2"), "about_me");
  delete_by_session("c3", "s1");
  EXPECT_EQ(fts_drift(), 0);
  EXPECT_EQ(search(filter("c1"), "common")["data"].size(), 4u);
}

// Version 4 kept per-cell statistics only: opening it sums each tally's tokens from
// the entries, so a search's statistics are its caller's, and drops the per-cell table.
TEST_F(UpgradeTest, AStoreFromSchemaVersionFourGetsTalliesWithTokens) {
  {
    auto db = old_store(4);
    memory_sqlite::Transaction tx(*db, "BEGIN");
    for (int i = 0; i < 300; ++i)
      insert(*db, {i % 3 ? "c1" : "c2", i % 7, i % 2 ? "alice" : "bob", i % 4 ? "" : "n1",
                   i % 5 ? "" : "s1", "word " + std::to_string(i), 1 + i % 11});
    tx.commit();
  }
  open();
  EXPECT_EQ(totals_drift(), 0);
  EXPECT_EQ(fts_drift(), 0);
  Database db(db_path(), OpenMode::kReadOnly);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM sqlite_master WHERE name LIKE '%cell_stats%'"), 0);
  EXPECT_GT(db.query_int("SELECT sum(tokens) FROM memory_totals WHERE shape = 3"), 0);
}

// Version 5 walked a term among the whole cell's matches: opening it reindexes each
// entry under its scope, so another actor's private entries no longer fill an actor's
// window.
TEST_F(UpgradeTest, AStoreFromSchemaVersionFiveSearchesEachActorsScope) {
  std::vector<std::string> alice_ids;
  {
    auto db = old_store(5);
    memory_sqlite::Transaction tx(*db, "BEGIN");
    alice_ids.push_back(insert(*db, {"c1", 2, "alice", "", "", "common"}));
    alice_ids.push_back(insert(*db, {"c1", 1, "bob", "", "", "common shared"}));
    for (int i = 0; i < 40; ++i) insert(*db, {"c1", 2 + i % 5, "bob", "", "", "common common"});
    tx.commit();
  }
  open({{"search_candidates", 10}});
  EXPECT_EQ(fts_drift(), 0);
  std::vector<std::string> got = ids_of(search(filter("c1", "alice"), "common")["data"]);
  std::sort(got.begin(), got.end());
  std::sort(alice_ids.begin(), alice_ids.end());
  EXPECT_EQ(got, alice_ids);  // not crowded out by bob's 40 newer private matches
  EXPECT_EQ(search(filter("c1", "bob"), "common", nullptr, 100)["data"].size(), 10u);
  EXPECT_EQ(search(filter("c1"), "common", nullptr, 100)["data"].size(), 10u);

  // The index goes on from where the rebuild left it.
  save({{"cell", "c1"}, {"content", "common kestrel"}});
  clear_layer(filter("c1", "bob"), "working");
  EXPECT_EQ(fts_drift(), 0);
  EXPECT_EQ(search(filter("c1", "alice"), "common")["data"].size(), 3u);
}

TEST_F(UpgradeTest, AnUpgradedStoreHasTheSchemaOfANewOne) {
  std::string fresh = schema_text();
  ASSERT_NE(fresh.find("memory_totals"), std::string::npos) << fresh;
  for (int64_t version = 0; version < memory_sqlite::schema_version(); ++version) {
    old_store(version);
    open();
    EXPECT_EQ(schema_text(), fresh) << "from version " << version;
  }
}

}  // namespace
}  // namespace agentrt::test
