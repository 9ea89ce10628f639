// StateStore::read_short: a read of a few rows on the writer connection when no write is
// under way or queued (its page cache holds what the last commits wrote), on a read
// connection otherwise, and never a way to write.
#include "core/store/state_store.h"
#include "tests/core/store_test_util.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

using test_util::insert_key;
using test_util::wait_for_pending;

using namespace std::chrono_literals;

bool has_key(Connection& db, const std::string& key) {
  Statement q = db.prepare("SELECT count(*) FROM meta WHERE key = ?");
  q.bind(1, key).step();
  return q.column_int(0) == 1;
}

// Read connections are opened read-only; the writer is not.
bool on_writer(Connection& db) {
  return sqlite3_db_readonly(db.handle(), "main") == 0;
}

// Where a short read of `key` ran, and whether it found the key.
struct Seen {
  bool on_writer = false;
  bool found = false;
  bool operator==(const Seen& other) const {
    return on_writer == other.on_writer && found == other.found;
  }
};
constexpr Seen kFoundOnTheWriter{true, true};
Seen short_read_of(const StateStore& store, const std::string& key) {
  Seen seen;
  store.read_short([&](Connection& db) {
    seen.on_writer = on_writer(db);
    seen.found = has_key(db, key);
  });
  return seen;
}

TEST(ShortReadTest, AnIdleWritersConnectionReadsWhatWasJustCommitted) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  store.write([](Connection& db) { insert_key(db, "a"); });
  EXPECT_EQ(short_read_of(store, "a"), kFoundOnTheWriter);
}

TEST(ShortReadTest, WhileAWriteIsUnderWayItReadsOnAReadConnectionWithoutWaiting) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  std::promise<void> entered, release;
  std::thread leader([&] {
    store.write([&](Connection& db) {
      insert_key(db, "uncommitted");
      entered.set_value();
      release.get_future().wait();
    });
  });
  entered.get_future().wait();
  auto read = std::async(std::launch::async, [&] { return short_read_of(store, "uncommitted"); });
  const bool without_waiting = read.wait_for(5s) == std::future_status::ready;
  release.set_value();
  leader.join();
  Seen seen = read.get();
  EXPECT_TRUE(without_waiting) << "the read waited for the write";
  EXPECT_FALSE(seen.on_writer);
  EXPECT_FALSE(seen.found) << "a read saw a write before its commit";
}

TEST(ShortReadTest, AWriterThatArrivesDuringTheReadCommitsAfterIt) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  std::thread writer;
  bool seen_during = true;
  store.read_short([&](Connection& db) {
    writer = std::thread([&] { store.write([](Connection& w) { insert_key(w, "late"); }); });
    ASSERT_TRUE(wait_for_pending(store, 1)) << "the writer did not queue behind the read";
    seen_during = has_key(db, "late");
  });
  writer.join();
  EXPECT_FALSE(seen_during);
  EXPECT_TRUE(short_read_of(store, "late").found);
}

TEST(ShortReadTest, AReadThatThrowsLeavesTheWriterFreeForTheNextWrite) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  EXPECT_THROW(store.read_short([](Connection& db) {
    has_key(db, "a");
    throw std::runtime_error("the caller's own failure");
  }),
               std::runtime_error);
  store.write([](Connection& db) { insert_key(db, "after"); });
  EXPECT_EQ(short_read_of(store, "after"), kFoundOnTheWriter);
}

TEST(ShortReadTest, AReadThatWritesIsRefusedAndLeavesNothing) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  EXPECT_THROW(store.read_short([](Connection& db) { insert_key(db, "sneaked"); }), StoreError);
  bool found = true;
  store.read([&](Connection& db) { found = has_key(db, "sneaked"); });
  EXPECT_FALSE(found);
  store.write([](Connection& db) { insert_key(db, "after"); });
}

// The keys the threads below wrote, "<thread>/<n>".
int64_t threads_keys(Connection& db) {
  Statement all = db.prepare("SELECT count(*) FROM meta WHERE key LIKE '%/%'");
  all.step();
  return all.column_int(0);
}

// Writers and short readers on many threads, so that reads take the writer between
// commits, fall back while one runs, and writers queue behind reads: each thread reads
// back every key it wrote, and sees at least as many keys as it has written.
TEST(ShortReadTest, ManyThreadsWritingAndReadingEachReadWhatTheyCommitted) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  constexpr int kThreads = 8, kKeys = 150;
  std::atomic<int> misses{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kKeys; ++k) {
        const std::string key = std::to_string(t) + "/" + std::to_string(k);
        store.write([&](Connection& db) { insert_key(db, key); });
        int64_t keys = 0;
        bool found = false;
        store.read_short([&](Connection& db) {
          found = has_key(db, key);
          keys = threads_keys(db);
        });
        if (!found || keys < k + 1) ++misses;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(misses.load(), 0);
  int64_t keys = 0;
  store.read([&](Connection& db) { keys = threads_keys(db); });
  EXPECT_EQ(keys, int64_t{kThreads} * kKeys);
}

}  // namespace
}  // namespace agentrt::core
