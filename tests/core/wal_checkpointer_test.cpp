// The background WAL checkpoint (core/store/wal_checkpointer.h) on its own: one
// writer connection, its group commit and the checkpointer, on a small threshold.
#include "core/store/wal_checkpointer.h"
#include "core/store/write_batcher.h"
#include "tests/core/temp_dir.h"

#include <sched.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;

// A database with a table of page-sized rows, its writer and group commit.
struct Writer {
  test_util::TempDir tmp;
  std::string path = tmp.file("a.db");
  Connection db{path};
  WriteBatcher batcher{db};
  int next = 0;

  Writer() { db.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)"); }
  void write_pages(int commits) {
    for (int i = 0; i < commits; ++i)
      batcher.write([&](Connection& c) {
        c.prepare("INSERT INTO t(k, b) VALUES(?, ?)")
            .bind(1, next++)
            .bind(2, std::string(3000, 'p'))
            .run();
      });
  }
};

// A writer that never pauses (one request after another, as at concurrency 1) appends
// frames while every pass copies, and SQLite restarts the WAL only at a write that
// begins after a checkpoint copied every frame. Passes alone hardly ever end exactly
// between two commits, so the WAL grew past the threshold for good and every commit
// asked for another pass; the catch-up with writers held makes it restart.
// The old logic restarted it 0 times in 500,000 commits. Alone, 5 restarts take about
// 0.15 s; with both cores taken by other tests, the niced checkpoint thread got 2 in
// 10 s (311,800 commits), hence the loose bound and the long limit.
TEST(WalCheckpointerTest, TheWalRestartsUnderAWriterThatNeverPauses) {
  Writer w;
  WalCheckpointer checkpointer(w.path, w.db, w.batcher, /*threshold_frames=*/200);
  for (auto until = std::chrono::steady_clock::now() + 30s;
       checkpointer.restarts() < 3 && std::chrono::steady_clock::now() < until;)
    w.write_pages(100);
  EXPECT_GE(checkpointer.restarts(), 1u) << "after " << w.next << " commits";
  EXPECT_GT(checkpointer.held(), 0u);
  Statement count = w.db.prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.column_int(0), w.next);
}

// With runs on their way writers are never held: their commits come in batches with
// gaps between them, and a free pass that ends in a gap lets the next commit restart
// the WAL.
TEST(WalCheckpointerTest, WithRunsOnTheirWayTheWalRestartsInTheGapsBetweenCommits) {
  Writer w;
  WalCheckpointer checkpointer(w.path, w.db, w.batcher, /*threshold_frames=*/200);
  WriteBatcher::Coming one(w.batcher), another(w.batcher);
  for (auto until = std::chrono::steady_clock::now() + 10s;
       checkpointer.restarts() < 3 && std::chrono::steady_clock::now() < until;) {
    w.write_pages(20);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GE(checkpointer.restarts(), 3u) << "after " << w.next << " commits";
  EXPECT_EQ(checkpointer.held(), 0u);
}

bool policy_becomes(pid_t tid, int policy) {
  for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(1ms))
    if (::sched_getscheduler(tid) == policy) return true;
  return false;
}

// The checkpoint thread takes only idle CPU (wal_checkpointer.h), unless it falls
// behind: a reader on an old snapshot keeps every checkpoint from finishing, the WAL
// passes twice the threshold, and the writer gives the thread a share of the CPU back
// until a checkpoint copies everything.
TEST(WalCheckpointerTest, RunsOnIdleCpuUnlessItFallsBehind) {
  bool allowed = false;
  std::thread([&] {
    const sched_param param{};
    allowed = ::sched_setscheduler(0, SCHED_IDLE, &param) == 0;
  }).join();
  if (!allowed) GTEST_SKIP() << "this machine does not let a thread take SCHED_IDLE";
  Writer w;
  WalCheckpointer checkpointer(w.path, w.db, w.batcher, /*threshold_frames=*/20);
  for (auto until = std::chrono::steady_clock::now() + 5s;
       checkpointer.thread_id() == 0 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(1ms);
  const pid_t tid = checkpointer.thread_id();
  ASSERT_NE(tid, 0);
  EXPECT_TRUE(policy_becomes(tid, SCHED_IDLE));

  Connection reader(w.path, /*read_only=*/true);
  reader.exec("BEGIN");
  {
    Statement snapshot = reader.prepare("SELECT count(*) FROM t");
    ASSERT_TRUE(snapshot.step());
  }                   // the read transaction keeps its snapshot until COMMIT
  w.write_pages(50);  // 50 frames and more, none of them copied past the reader
  EXPECT_EQ(::sched_getscheduler(tid), SCHED_OTHER);

  reader.exec("COMMIT");
  const uint64_t done = checkpointer.completed();
  for (auto until = std::chrono::steady_clock::now() + 5s;
       ::sched_getscheduler(tid) != SCHED_IDLE && std::chrono::steady_clock::now() < until;) {
    w.write_pages(1);  // each commit past the threshold asks for another checkpoint
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(::sched_getscheduler(tid), SCHED_IDLE);
  EXPECT_GT(checkpointer.completed(), done);
}

}  // namespace
}  // namespace agentrt::core
