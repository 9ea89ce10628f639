#include "core/store/state_store.h"
#include "tests/core/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;

int64_t query_int(const StateStore& store, const std::string& sql) {
  int64_t value = -1;
  store.read([&](Connection& db) {
    Statement query = db.prepare(sql);
    if (!query.step()) throw std::runtime_error("no row for " + sql);
    value = query.column_int(0);
  });
  return value;
}

std::string meta(const StateStore& store, const std::string& key) {
  std::string value;
  store.read([&](Connection& db) {
    Statement query = db.prepare("SELECT value FROM meta WHERE key = ?");
    query.bind(1, key);
    if (query.step()) value = query.column_text(0);
  });
  return value;
}

int newest_known() {
  return schema_migrations().back().version;
}

TEST(StateStoreTest, CreatesPrivateDirectoriesAndDatabase) {
  test_util::TempDir tmp;
  const std::string data_dir = tmp.file("a/b/data");
  StateStore store(data_dir);
  EXPECT_EQ(store.path(), data_dir + "/state.db");
  for (const std::string& dir : {tmp.file("a"), tmp.file("a/b"), data_dir}) {
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u) << dir;
  }
  EXPECT_EQ(::access(store.path().c_str(), F_OK), 0);
  store.write([](Connection& db) { db.exec("INSERT INTO meta VALUES('mode', 'check')"); });
  for (const std::string& file : {store.path(), store.path() + "-wal", store.path() + "-shm"}) {
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << file << ": conversations are private";
  }
  EXPECT_EQ(store.schema_version(), newest_known());
  EXPECT_TRUE(store.healthy());
}

TEST(StateStoreTest, DatabaseIsInWalMode) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  std::string mode;
  store.read([&](Connection& db) {
    Statement query = db.prepare("PRAGMA journal_mode");
    ASSERT_TRUE(query.step());
    mode = query.column_text(0);
  });
  EXPECT_EQ(mode, "wal");
  EXPECT_EQ(::access((store.path() + "-wal").c_str(), F_OK), 0);
}

TEST(StateStoreTest, FirstMigrationWritesInstanceMeta) {
  test_util::TempDir tmp;
  std::string instance_id;
  {
    StateStore store(tmp.path());
    instance_id = meta(store, "instance_id");
    EXPECT_TRUE(std::regex_match(instance_id, std::regex("^[0-9a-f]{32}$"))) << instance_id;
    EXPECT_TRUE(std::regex_match(meta(store, "created_at"),
                                 std::regex(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)")))
        << meta(store, "created_at");
  }
  StateStore reopened(tmp.path());
  EXPECT_EQ(meta(reopened, "instance_id"), instance_id);
  test_util::TempDir other;
  EXPECT_NE(meta(StateStore(other.path()), "instance_id"), instance_id);
}

TEST(StateStoreTest, MigrationsApplyOnceAndInOrder) {
  test_util::TempDir tmp;
  std::vector<Migration> migrations = {
      {1, "create", "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES(1);"},
  };
  {
    StateStore store(tmp.path(), migrations);
    EXPECT_EQ(store.schema_version(), 1);
  }
  {
    StateStore store(tmp.path(), migrations);  // reopen: nothing reapplied
    EXPECT_EQ(store.schema_version(), 1);
    EXPECT_EQ(query_int(store, "SELECT count(*) FROM t"), 1);
    EXPECT_EQ(query_int(store, "SELECT count(*) FROM schema_migrations"), 1);
  }
  migrations.push_back({2, "more", "INSERT INTO t VALUES(2);"});
  migrations.push_back({5, "gap", "INSERT INTO t VALUES(5);"});
  StateStore store(tmp.path(), migrations);
  EXPECT_EQ(store.schema_version(), 5);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM t"), 3);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM schema_migrations"), 3);
  EXPECT_EQ(query_int(store,
                      "SELECT count(*) FROM schema_migrations WHERE name = 'more' "
                      "AND applied_at LIKE '____-__-__T__:__:__.___Z'"),
            1);
}

TEST(StateStoreTest, FailedMigrationLeavesNoTrace) {
  test_util::TempDir tmp;
  const std::vector<Migration> good = {{1, "create", "CREATE TABLE t(x INTEGER);"}};
  std::vector<Migration> bad = good;
  bad.push_back({2, "broken", "CREATE TABLE half(x); INSERT INTO missing VALUES(1);"});
  try {
    StateStore store(tmp.path(), bad);
    FAIL() << "the broken migration should throw";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("migration 2"), std::string::npos) << e.what();
  }
  StateStore store(tmp.path(), good);
  EXPECT_EQ(store.schema_version(), 1);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM sqlite_master WHERE name = 'half'"), 0);
}

TEST(StateStoreTest, RefusesDatabaseNewerThanEngine) {
  test_util::TempDir tmp;
  {
    StateStore store(tmp.path());
    store.write([](Connection& db) {
      db.exec(
          "INSERT INTO schema_migrations(version, name, applied_at) "
          "VALUES(999, 'future', '2099-01-01T00:00:00.000Z')");
    });
  }
  try {
    StateStore store(tmp.path());
    FAIL() << "a newer database should be refused";
  } catch (const StoreError& e) {
    const std::string expected = "database schema version 999 is newer than this agentd (" +
                                 std::to_string(newest_known()) + ")";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

// A state.db gone or emptied beside the other stores of an earlier start was made anew
// as on a first start (a new admin token over admin.token), beside tokens and memory of
// what it no longer had.
TEST(StateStoreTest, AStateLostBesideOtherStoresIsRefusedNotMadeAnew) {
  test_util::TempDir tmp;
  { StateStore store(tmp.path()); }
  const std::string state = tmp.path() + "/state.db";
  {
    FILE* memory = std::fopen((tmp.path() + "/memory.db").c_str(), "w");
    std::fputs("SQLite format 3", memory);
    std::fclose(memory);
  }
  for (const bool emptied : {false, true}) {
    if (emptied) {
      FILE* empty = std::fopen(state.c_str(), "w");  // truncated to 0 bytes
      std::fclose(empty);
    } else {
      ASSERT_EQ(std::remove(state.c_str()), 0);
    }
    try {
      StateStore store(tmp.path());
      FAIL() << "a lost state.db was made anew";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("memory.db' holds data of an earlier start"),
                std::string::npos)
          << e.what();
    }
  }
  // A first start, and a data dir whose other stores are empty, are no loss.
  ASSERT_EQ(std::remove(state.c_str()), 0);
  FILE* memory = std::fopen((tmp.path() + "/memory.db").c_str(), "w");
  std::fclose(memory);
  EXPECT_NO_THROW(StateStore store(tmp.path()));
}

TEST(StateStoreTest, WriteCommitsOrRollsBackWhole) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  auto insert = [](Connection& db, const char* key) {
    db.prepare("INSERT INTO meta(key, value) VALUES(?, 'v')").bind(1, key).run();
  };
  EXPECT_THROW(store.write([&](Connection& db) {
    insert(db, "first");
    insert(db, "second");
    throw std::logic_error("caller failed");
  }),
               std::logic_error);  // the caller's own exception comes back unchanged
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM meta WHERE key IN ('first', 'second')"), 0);

  EXPECT_THROW(store.write([&](Connection& db) {
    insert(db, "third");
    insert(db, "third");  // primary key violation
  }),
               StoreError);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM meta WHERE key = 'third'"), 0);

  store.write([&](Connection& db) { insert(db, "fourth"); });  // no transaction left open
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM meta WHERE key = 'fourth'"), 1);
}

TEST(StateStoreTest, ReadersDoNotWaitForAnOpenWriteTransaction) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  const std::string count_sql = "SELECT count(*) FROM meta";
  const int64_t before = query_int(store, count_sql);

  std::promise<void> inserted;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread writer([&] {
    store.write([&](Connection& db) {
      db.exec("INSERT INTO meta(key, value) VALUES('pending', 'x')");
      inserted.set_value();
      released.wait();
    });
  });
  inserted.get_future().wait();

  std::vector<std::future<int64_t>> readers;
  for (int i = 0; i < 4; ++i) {
    readers.push_back(std::async(std::launch::async, [&] { return query_int(store, count_sql); }));
  }
  bool all_finished = true;
  for (auto& reader : readers) {
    if (reader.wait_for(3s) != std::future_status::ready) all_finished = false;
  }
  release.set_value();  // unblock the writer before asserting, or a failure hangs
  writer.join();
  ASSERT_TRUE(all_finished) << "a reader waited for the writer";
  for (auto& reader : readers) EXPECT_EQ(reader.get(), before);
  EXPECT_EQ(query_int(store, count_sql), before + 1);
}

TEST(StateStoreTest, ReadSeesOneSnapshotThroughout) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  int64_t first = -1;
  int64_t second = -1;
  store.read([&](Connection& db) {
    Statement count = db.prepare("SELECT count(*) FROM meta");
    ASSERT_TRUE(count.step());
    first = count.column_int(0);
    count.reset();
    std::thread([&] {
      store.write([](Connection& w) { w.exec("INSERT INTO meta VALUES('during', 'x')"); });
    }).join();
    ASSERT_TRUE(count.step());
    second = count.column_int(0);
  });
  EXPECT_EQ(first, second);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM meta"), first + 1);
}

TEST(StateStoreTest, ConcurrentWritersAreSerialized) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  store.write([](Connection& db) { db.exec("CREATE TABLE counter(n INTEGER)"); });
  store.write([](Connection& db) { db.exec("INSERT INTO counter VALUES(0)"); });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        store.write([](Connection& db) {
          Statement read = db.prepare("SELECT n FROM counter");
          read.step();
          const int64_t n = read.column_int(0);
          db.prepare("UPDATE counter SET n = ?").bind(1, n + 1).run();
        });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(query_int(store, "SELECT n FROM counter"), 200);
}

TEST(StateStoreTest, ReadConnectionsAreReadOnlyAndSurviveErrors) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  EXPECT_THROW(store.read([](Connection& db) { db.exec("INSERT INTO meta VALUES('r', 'x')"); }),
               StoreError);
  EXPECT_THROW(store.read([](Connection&) { throw std::runtime_error("reader failed"); }),
               std::runtime_error);
  EXPECT_EQ(query_int(store, "SELECT count(*) FROM meta WHERE key = 'r'"), 0);
  EXPECT_TRUE(store.healthy());
}

TEST(StateStoreTest, HealthyFalseAfterDatabaseDeleted) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  EXPECT_TRUE(store.healthy());
  EXPECT_TRUE(store.healthy());  // repeatable: pooled connections come back
  ASSERT_EQ(::unlink(store.path().c_str()), 0);
  EXPECT_FALSE(store.healthy());
}

TEST(StateStoreTest, HealthyFalseAfterDatabaseReplaced) {
  test_util::TempDir tmp;
  StateStore store(tmp.path() + "/live");
  {
    // A valid database with the same tables, so only the file identity differs.
    StateStore impostor(tmp.path() + "/other");
  }
  ASSERT_EQ(std::rename((tmp.path() + "/other/state.db").c_str(), store.path().c_str()), 0);
  EXPECT_FALSE(store.healthy());
}

// The code a write fails with, 0 when it commits.
int write_code(StateStore& store, const std::string& key) {
  try {
    store.write([&](Connection& db) {
      db.prepare("INSERT INTO meta(key, value) VALUES(?, 'x')").bind(1, key).run();
    });
    return 0;
  } catch (const StoreError& e) {
    return e.sqlite_code();
  }
}

// In WAL mode SQLite would commit to the unlinked files, lost at the next start, and
// tell the writer it had: the store refuses instead, for now (503), from at most
// Connection::kMovedCheckEvery after the removal.
TEST(StateStoreTest, AWriteToARemovedDatabaseIsRefusedForNow) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  ASSERT_EQ(write_code(store, "before"), 0);
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((store.path() + suffix).c_str());
  std::this_thread::sleep_for(Connection::kMovedCheckEvery + 10ms);
  const int code = write_code(store, "after");
  EXPECT_EQ(code, SQLITE_READONLY_DBMOVED) << sqlite3_errstr(code);
  EXPECT_TRUE(StoreError("refused", code).for_now());
  EXPECT_EQ(write_code(store, "later"), SQLITE_READONLY_DBMOVED) << "refused for good";
  EXPECT_FALSE(store.healthy());
}

TEST(StateStoreTest, AWriteToAReplacedDatabaseIsRefused) {
  test_util::TempDir tmp;
  StateStore store(tmp.path() + "/live");
  { StateStore other(tmp.path() + "/other"); }
  ASSERT_EQ(std::rename((tmp.path() + "/other/state.db").c_str(), store.path().c_str()), 0);
  std::this_thread::sleep_for(Connection::kMovedCheckEvery + 10ms);
  EXPECT_EQ(write_code(store, "after"), SQLITE_READONLY_DBMOVED);
}

TEST(StateStoreTest, UnusableDataDirIsAStoreError) {
  test_util::TempDir tmp;
  const std::string file = tmp.write("not-a-dir", "x");
  EXPECT_THROW(StateStore store(file), StoreError);
  EXPECT_THROW(StateStore store(file + "/below"), StoreError);
  EXPECT_THROW(StateStore store(""), StoreError);
}

}  // namespace
}  // namespace agentrt::core
