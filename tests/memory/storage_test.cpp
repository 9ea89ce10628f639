// The store's file and config: persistence across instances, a private file, and a
// config that refuses what it does not know. Upgrades of older files: upgrade_test.cpp.
#include "memory_fixture.h"

#include "sqlite_db.h"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

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

// The WAL is checkpointed every `checkpoint_pages` pages (default 10,000, not SQLite's
// 1,000; requests.h says why), by SQLite's automatic checkpoint in the save that passes
// them.
class WalTest : public MemoryTest {
 protected:
  uint64_t wal_pages() const {
    std::error_code absent;
    uintmax_t bytes = std::filesystem::file_size(db_path() + "-wal", absent);
    return absent ? 0 : bytes / (4096 + 24);
  }
  uintmax_t db_bytes() const { return std::filesystem::file_size(db_path()); }
  void save_some(int n) {
    for (int i = 0; i < n; ++i) save({{"content", "entry number " + std::to_string(i)}});
  }
};

TEST_F(WalTest, TheDefaultLetsTheWalGrowPastSqlitesThousandPages) {
  save_some(300);
  EXPECT_GT(wal_pages(), 2000u);
}

// Saves that never pause leave the WAL bounded: the save that passes the threshold
// copies every frame, with no other save under way, so the next one restarts the WAL.
TEST_F(WalTest, SavesThatNeverPauseLeaveTheWalBounded) {
  open({{"checkpoint_pages", 100}});
  uint64_t most = 0;
  for (int i = 0; i < 600; ++i) {
    save({{"content", "entry number " + std::to_string(i)}});
    most = std::max(most, wal_pages());
  }
  EXPECT_LT(most, 1000u);  // 600 saves append about 8,000 pages
  EXPECT_EQ(count(filter("c1", "alice"))["about_me"], 600);
}

// The pages reach memory.db without another save to carry the checkpoint.
TEST_F(WalTest, ACheckpointNeedsNoFurtherSave) {
  open({{"checkpoint_pages", 100}});
  uintmax_t empty = db_bytes();
  save_some(20);  // about 260 pages
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (db_bytes() <= empty && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(db_bytes(), empty);
}

// The store closes after saves that checkpointed, and with frames not yet copied;
// nothing is lost.
TEST_F(WalTest, ClosingDuringACheckpointLosesNothing) {
  for (int round = 0; round < 10; ++round) {
    open({{"checkpoint_pages", 100}});
    save_some(15);
    memory.reset();
  }
  open();
  EXPECT_EQ(count(filter("c1", "alice"))["about_me"], 150);
  EXPECT_EQ(search(filter("c1", "alice"), "entry", nullptr, 100)["data"].size(), 100u);
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
  for (json bad : {json(0), json(99), json("10000"), json(1000001)}) {
    Failure f = create_failure({{"data_dir", data_dir}, {"checkpoint_pages", bad}});
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(f.message.find("checkpoint_pages"), std::string::npos) << f.message;
  }
  EXPECT_NO_THROW(open({{"search_candidates", 10}, {"checkpoint_pages", 100}}));
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
