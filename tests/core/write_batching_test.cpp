// Group commit (core/store/write_batcher.h) and the background WAL checkpoint
// (core/store/wal_checkpointer.h), through the StateStore that uses them. The
// checkpointer on its own: wal_checkpointer_test.cpp.
#include "core/store/state_store.h"
#include "core/store/write_batcher.h"
#include "tests/core/store_test_util.h"
#include "tests/core/temp_dir.h"

#include <sched.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

using test_util::insert_key;
using test_util::wait_for_pending;

using namespace std::chrono_literals;

int64_t count_keys(const StateStore& store, const std::string& key) {
  int64_t n = -1;
  store.read([&](Connection& db) {
    Statement q = db.prepare("SELECT count(*) FROM meta WHERE key = ?");
    q.bind(1, key).step();
    n = q.column_int(0);
  });
  return n;
}

// A database with the schema, then the file on its own: one writer connection and its
// group commit, without the StateStore around them.
struct BareBatcher {
  test_util::TempDir tmp;
  std::string path = StateStore(tmp.path()).path();
  Connection writer{path};
  WriteBatcher batcher{writer};
};

constexpr int64_t kWalLimit = 64 * 1024 * 1024;  // journal_size_limit

// Holds the writer inside a transaction until released, so the writes started
// meanwhile queue up and commit together as one batch.
class BlockedLeader {
 public:
  explicit BlockedLeader(StateStore& store) {
    thread_ = std::thread([this, &store] {
      store.write([this](Connection& db) {
        insert_key(db, "leader");
        entered_.set_value();
        release_.get_future().wait();
      });
    });
    entered_.get_future().wait();
  }
  void release() {
    if (!released_) release_.set_value();
    released_ = true;
    thread_.join();
  }
  ~BlockedLeader() {
    if (!released_) release();
  }

 private:
  std::promise<void> entered_, release_;
  bool released_ = false;
  std::thread thread_;
};

TEST(WriteBatchingTest, AFailingWriterInABatchRollsBackOnlyItsOwnChanges) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  BlockedLeader leader(store);
  auto failing = std::async(std::launch::async, [&] {
    store.write([](Connection& db) {
      insert_key(db, "failing");
      throw std::invalid_argument("the caller's own error");
    });
  });
  ASSERT_TRUE(wait_for_pending(store, 1));
  auto fine = std::async(std::launch::async,
                         [&] { store.write([](Connection& db) { insert_key(db, "fine"); }); });
  ASSERT_TRUE(wait_for_pending(store, 2)) << "the two writes did not queue into one batch";
  leader.release();

  EXPECT_THROW(failing.get(), std::invalid_argument);
  EXPECT_NO_THROW(fine.get());
  EXPECT_EQ(count_keys(store, "leader"), 1);
  EXPECT_EQ(count_keys(store, "failing"), 0);
  EXPECT_EQ(count_keys(store, "fine"), 1);
}

TEST(WriteBatchingTest, WhenTheSharedTransactionDiesNoWriterIsToldItCommitted) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  BlockedLeader leader(store);
  auto killer = std::async(std::launch::async, [&] {
    store.write([](Connection& db) {
      insert_key(db, "killer");
      db.exec("ROLLBACK");  // what SQLite does on its own after an I/O error or a full disk
      throw StoreError("disk I/O error");
    });
  });
  ASSERT_TRUE(wait_for_pending(store, 1));
  auto bystander = std::async(std::launch::async,
                              [&] { store.write([](Connection& db) { insert_key(db, "by"); }); });
  ASSERT_TRUE(wait_for_pending(store, 2));
  leader.release();

  EXPECT_THROW(killer.get(), StoreError);
  EXPECT_THROW(bystander.get(), StoreError);
  EXPECT_EQ(count_keys(store, "killer"), 0);
  EXPECT_EQ(count_keys(store, "by"), 0);
  store.write([](Connection& db) { insert_key(db, "after"); });  // the writer still works
  EXPECT_EQ(count_keys(store, "after"), 1);
}

TEST(WriteBatchingTest, ManyConcurrentWritersAllCommitExactlyOnce) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i)
        store.write([&](Connection& db) {
          insert_key(db, "k" + std::to_string(t) + "-" + std::to_string(i));
        });
    });
  for (auto& thread : threads) thread.join();
  int64_t total = -1;
  store.read([&](Connection& db) {
    Statement q = db.prepare("SELECT count(*) FROM meta WHERE key GLOB 'k*-*'");
    q.step();
    total = q.column_int(0);
  });
  EXPECT_EQ(total, 800);
}

// Every way a waiting writer is woken, at once: served by another's commit, handed the
// turn to lead, handed it after a leader already took its job, and held back by
// exclusive sections. Each writer must learn its own outcome exactly once; a lost
// wake-up hangs here, a wrong one miscounts.
TEST(WriteBatchingTest, WritersWokenEveryWayEachLearnTheirOwnOutcome) {
  BareBatcher bare;
  Connection& writer = bare.writer;
  WriteBatcher& batcher = bare.batcher;
  constexpr int kThreads = 8, kWrites = 150;
  std::atomic<int> refused{0};
  std::atomic<bool> writing{true};
  std::thread sections([&] {
    while (writing.load()) {
      batcher.exclusive([] { std::this_thread::sleep_for(100us); });
      std::this_thread::sleep_for(200us);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        const bool fails = (i + t) % 7 == 0;
        try {
          batcher.write([&](Connection& db) {
            insert_key(db, "w" + std::to_string(t) + "-" + std::to_string(i));
            if (fails) throw std::runtime_error("refused");
          });
          EXPECT_FALSE(fails) << "a failed write reported success";
        } catch (const std::runtime_error&) {
          EXPECT_TRUE(fails) << "a good write reported another's failure";
          ++refused;
        }
      }
    });
  for (auto& thread : threads) thread.join();
  writing = false;
  sections.join();
  Statement q = writer.prepare("SELECT count(*) FROM meta WHERE key GLOB 'w*-*'");
  q.step();
  EXPECT_EQ(q.column_int(0) + refused.load(), kThreads * kWrites);
  EXPECT_GT(refused.load(), 0);
  EXPECT_EQ(batcher.pending(), 0u);
}

// Runs `fn` with this thread, and the threads it starts, on one core: every writer
// then competes for it, as all do on a saturated machine.
void on_one_core(const std::function<void()>& fn) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int core = 0;
  while (!CPU_ISSET(core, &before)) ++core;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(core, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  fn();
  sched_setaffinity(0, sizeof before, &before);
}

// A leader steps aside before it takes the queue, so writers that were ready to run
// join its commit instead of each leading a commit of its own.
TEST(WriteBatchingTest, ALeaderOnABusyCoreGathersTheWritersReadyToRun) {
  BareBatcher bare;
  Connection& writer = bare.writer;
  WriteBatcher& batcher = bare.batcher;
  constexpr int kThreads = 8, kWrites = 50;
  on_one_core([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        WriteBatcher::Coming coming(batcher);  // as a run holds it until its last write
        for (int i = 0; i < kWrites; ++i)
          batcher.write([&](Connection& db) {
            insert_key(db, "g" + std::to_string(t) + "-" + std::to_string(i));
          });
      });
    for (auto& thread : threads) thread.join();
  });
  Statement q = writer.prepare("SELECT count(*) FROM meta WHERE key GLOB 'g*-*'");
  q.step();
  EXPECT_EQ(q.column_int(0), kThreads * kWrites);
  EXPECT_LE(batcher.commits(), uint64_t{kThreads * kWrites / 3})
      << "writers ready to run should share commits";
}

// The checkpoint's exclusive section: writers that arrive during it wait, none of them
// leads meanwhile, and all commit once it ends (a lost hand-over would hang here).
TEST(WriteBatchingTest, WritersArrivingDuringAnExclusiveSectionCommitAfterIt) {
  BareBatcher bare;
  Connection& writer = bare.writer;
  WriteBatcher& batcher = bare.batcher;
  std::promise<void> inside, release;
  std::thread exclusive([&] {
    batcher.exclusive([&] {
      inside.set_value();
      release.get_future().wait();
    });
  });
  inside.get_future().wait();
  std::vector<std::thread> writers;
  for (int i = 0; i < 6; ++i)
    writers.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round)
        batcher.write([&](Connection& db) {
          insert_key(db, "x" + std::to_string(i) + "-" + std::to_string(round));
        });
    });
  bool all_queued = false;
  for (auto until = std::chrono::steady_clock::now() + 5s;
       !all_queued && std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(1ms))
    all_queued = batcher.pending() == 6;
  EXPECT_TRUE(all_queued) << "writers led while the exclusive section ran";
  release.set_value();
  exclusive.join();
  for (auto& w : writers) w.join();
  Statement q = writer.prepare("SELECT count(*) FROM meta WHERE key GLOB 'x*-*'");
  q.step();
  EXPECT_EQ(q.column_int(0), 120);
  EXPECT_EQ(batcher.pending(), 0u);
}

// Each commit past another megabyte of WAL starts its write-out in the background; no
// checkpoint is due yet at that size. The checkpoint thread takes idle CPU only, and
// requests made while it waits for a core count once: with both cores taken by other
// tests it once served the first two megabytes in one write-out. So after the first
// 600 commits the writer leaves it a moment between commits; 1,500 commits stay under
// the checkpoint threshold.
TEST(WriteBatchingTest, TheWalIsWrittenOutInTheBackgroundBetweenCheckpoints) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  const uint64_t before = store.wal_writebacks();
  const std::string blob(3000, 'y');  // about one page a commit
  for (int i = 0; i < 1500 && store.wal_writebacks() < before + 2; ++i) {
    store.write([&](Connection& db) {
      db.prepare("INSERT INTO meta(key, value) VALUES(?, ?)")
          .bind(1, "b" + std::to_string(i))
          .bind(2, blob)
          .run();
    });
    if (i >= 600) std::this_thread::sleep_for(2ms);
  }
  for (auto until = std::chrono::steady_clock::now() + 5s;
       store.wal_writebacks() < before + 2 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(1ms);
  EXPECT_GE(store.wal_writebacks(), before + 2);
  EXPECT_EQ(store.checkpoints(), 0u);
}

int64_t wal_bytes(const StateStore& store) {
  struct stat st {};
  return ::stat((store.path() + "-wal").c_str(), &st) == 0 ? st.st_size : -1;
}

// Without the background checkpoint (SQLite's automatic one is replaced) the WAL
// would only grow: 20,000 commits of a page or two are over 100 MB of frames. With it
// the WAL restarts after each checkpoint and is cut back to journal_size_limit.
TEST(WriteBatchingTest, TheWalIsCheckpointedInTheBackgroundAndStaysBounded) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  const std::string blob(1000, 'x');
  int next = 0;
  auto write_one = [&] {
    store.write([&](Connection& db) {
      db.prepare("INSERT INTO meta(key, value) VALUES(?, ?)")
          .bind(1, "w" + std::to_string(next++))
          .bind(2, blob)
          .run();
    });
  };
  for (int i = 0; i < 20000; ++i) write_one();
  // The checkpoint thread may lag behind on a loaded machine; keep writing slowly (each
  // commit past the threshold asks for a checkpoint, and the first commit after a
  // complete one restarts and cuts back the WAL) until it has caught up.
  for (auto until = std::chrono::steady_clock::now() + 30s;
       wal_bytes(store) > kWalLimit && std::chrono::steady_clock::now() < until;) {
    write_one();
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(store.checkpoints(), 0u);
  EXPECT_LE(wal_bytes(store), kWalLimit) << "the WAL kept growing";
}

// A leader yields to gather only while a writer it could gather is on its way: a
// writer alone commits at once (a yield could hand its core away for a scheduler
// tick), and one announced but not yet queued is waited for, a few yields at most.
TEST(WriteBatchingTest, ALeaderYieldsOnlyWhileAWriterIsOnItsWay) {
  BareBatcher bare;
  WriteBatcher& batcher = bare.batcher;
  for (int i = 0; i < 20; ++i)
    batcher.write([&](Connection& db) { insert_key(db, "alone-" + std::to_string(i)); });
  EXPECT_EQ(batcher.gather_yields(), 0u);
  {
    WriteBatcher::Coming mine(batcher);  // a run's own write counts itself
    batcher.write([&](Connection& db) { insert_key(db, "mine"); });
    EXPECT_EQ(batcher.gather_yields(), 0u);
  }

  std::optional<WriteBatcher::Coming> elsewhere(std::in_place, batcher);
  WriteBatcher::Coming other = std::move(*elsewhere);  // moving keeps one announcement
  elsewhere.reset();
  EXPECT_EQ(batcher.coming(), 1);  // another run, still waiting for its upstream
  {
    WriteBatcher::Coming mine(batcher);
    batcher.write([&](Connection& db) { insert_key(db, "while another is coming"); });
  }
  EXPECT_GT(batcher.gather_yields(), 0u);
  EXPECT_LE(batcher.gather_yields(), 2u) << "a yield that brought no one ends the gathering";
  EXPECT_EQ(batcher.coming(), 1);
  Statement q = bare.writer.prepare("SELECT count(*) FROM meta WHERE key GLOB 'alone-*'");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_int(0), 20);
}

}  // namespace
}  // namespace agentrt::core
