// The store's file and config: persistence across instances, a private file, and a
// config that refuses what it does not know. Upgrades of older files: upgrade_test.cpp.
#include "memory_fixture.h"

#include "sqlite_db.h"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>

namespace agentrt::test {
namespace {

TEST_F(MemoryTest, EntriesSurviveDestroyAndCreate) {
  json e = save({{"layer", "agent_memory"}, {"namespace", "n"}, {"content", "persistent osprey"}});
  save({{"layer", "working"}});
  memory.reset();
  open();
  EXPECT_EQ(get(filter("c1"), e["id"]), e);
  EXPECT_EQ(count(filter("c1"))["agent_memory"], 1);
  EXPECT_EQ(count(filter("c1"))["working"], 1);
  EXPECT_EQ(ids_of(search(filter("c1"), "osprey")["data"]), std::vector<std::string>{e["id"]});
  json later = save({});
  EXPECT_NE(later["id"], e["id"]);
  EXPECT_EQ(list(filter("c1"), "about_me")["data"][0]["id"], later["id"]);
}

TEST_F(MemoryTest, TheStoreFileIsPrivate) {
  struct stat st {};
  ASSERT_EQ(::stat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  memory.reset();
  ASSERT_EQ(::chmod(db_path().c_str(), 0644), 0);
  open();
  ASSERT_EQ(::stat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// The writer checkpoints every 10,000 WAL pages, not SQLite's 1,000 (connection.cpp
// says why): the WAL grows well past 1,000 pages before its first checkpoint, and a
// checkpoint still comes, so it stays far below what the saves appended.
TEST_F(MemoryTest, TheWalIsCheckpointedEveryTenThousandPages) {
  auto wal_pages = [&] { return std::filesystem::file_size(db_path() + "-wal") / (4096 + 24); };
  for (int i = 0; i < 300; ++i) save({{"content", "entry number " + std::to_string(i)}});
  EXPECT_GT(wal_pages(), 2000u);
  for (int i = 300; i < 1500; ++i) save({{"content", "entry number " + std::to_string(i)}});
  EXPECT_LT(wal_pages(), 12000u);
  EXPECT_EQ(count(filter("c1", "alice"))["about_me"], 1500);
}

// Opening a store already at this plugin's version reads it only: it neither waits for
// nor takes the write lock another process (an operator's sqlite3 shell) may hold.
TEST_F(MemoryTest, AnUpToDateStoreOpensWithoutTheWriteLock) {
  memory.reset();
  memory_sqlite::Database writer(db_path(), memory_sqlite::OpenMode::kReadWrite);
  writer.exec("BEGIN IMMEDIATE");
  auto started = std::chrono::steady_clock::now();
  EXPECT_NO_THROW(open());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
  writer.exec("ROLLBACK");
}

TEST_F(MemoryTest, ConfigRefusesUnknownKeysAndBadValues) {
  auto create_failure = [&](const json& config) {
    return failure([&] { core::PluginInstance(host.find("memory-sqlite"), config.dump()); });
  };
  Failure unknown = create_failure({{"data_dir", data_dir}, {"cache_mb", 5}});
  EXPECT_EQ(unknown.code, AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(unknown.message.find("cache_mb"), std::string::npos) << unknown.message;
  EXPECT_EQ(create_failure(json::object()).code, AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(create_failure({{"data_dir", ""}}).code, AGENTRT_ERR_INVALID_ARGUMENT);
  for (json bad : {json(0), json(-3), json("10"), json(1.5), json(1000001)}) {
    Failure f = create_failure({{"data_dir", data_dir}, {"search_candidates", bad}});
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(f.message.find("search_candidates"), std::string::npos) << f.message;
  }
  EXPECT_NO_THROW(open({{"search_candidates", 10}}));
}

TEST_F(MemoryTest, AMissingDataDirIsAnErrorNotACrash) {
  Failure f = failure([&] {
    core::PluginInstance(host.find("memory-sqlite"),
                         json{{"data_dir", data_dir + "/does/not/exist"}}.dump());
  });
  EXPECT_EQ(f.code, AGENTRT_ERR_INTERNAL);
  EXPECT_NE(f.message.find("memory.db"), std::string::npos) << f.message;
}

}  // namespace
}  // namespace agentrt::test
