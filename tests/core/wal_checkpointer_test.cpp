// The background WAL checkpoint (core/store/wal_checkpointer.h) on its own: one
// writer connection, its group commit and the checkpointer, on a small threshold.
#include "core/store/wal_checkpointer.h"
#include "core/log/logger.h"
#include "core/store/write_batcher.h"
#include "tests/core/temp_dir.h"

#include <linux/capability.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
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
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), WalCheckpointer::kNice);
    allowed = ::sched_setscheduler(0, SCHED_IDLE, &param) == 0 &&
              ::sched_setscheduler(0, SCHED_OTHER, &param) == 0;
  }).join();
  if (!allowed) GTEST_SKIP() << "this process may not take a thread out of SCHED_IDLE";
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

// Runs `scenario` on a thread without CAP_SYS_NICE in its effective set, as agentd runs
// under a plain user; the checkpoint thread it starts inherits that.
template <class Scenario>
void without_sys_nice(Scenario&& scenario) {
  std::thread([&] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    ASSERT_EQ(::syscall(SYS_capget, &header, data), 0);
    data[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
    ASSERT_EQ(::syscall(SYS_capset, &header, data), 0);
    scenario();
  }).join();
}

// The process's RLIMIT_NICE for one test (ctest runs each in a process of its own).
class NiceLimit {
 public:
  explicit NiceLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NICE, &saved_);
    rlimit wanted{soft, std::max(soft, saved_.rlim_max)};
    set_ = ::setrlimit(RLIMIT_NICE, &wanted) == 0;
  }
  ~NiceLimit() { ::setrlimit(RLIMIT_NICE, &saved_); }
  bool set() const { return set_; }

 private:
  rlimit saved_{};
  bool set_ = false;
};

bool settles(const WalCheckpointer& checkpointer) {
  for (auto until = std::chrono::steady_clock::now() + 5s;
       !checkpointer.settled() && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(1ms);
  return checkpointer.settled();
}

// Under a plain user Linux would not let the thread out of SCHED_IDLE again (sched(7)),
// and the writer's attempt to give it the CPU back when it falls behind failed: the
// packaged service (User=agentrt) kept it on idle CPU for good.
TEST(WalCheckpointerTest, StaysOffTheIdlePolicyWhereItCouldNotLeaveIt) {
  NiceLimit no_nice(0);
  ASSERT_TRUE(no_nice.set());
  std::mutex logged_mutex;
  std::string logged;
  Logger::set_sink([&](std::string_view line) {
    std::lock_guard<std::mutex> lock(logged_mutex);
    logged += line;
  });
  without_sys_nice([&] {
    Writer w;
    WalCheckpointer checkpointer(w.path, w.db, w.batcher, /*threshold_frames=*/20);
    ASSERT_TRUE(settles(checkpointer));
    const pid_t tid = checkpointer.thread_id();
    EXPECT_EQ(::sched_getscheduler(tid), SCHED_OTHER);
    EXPECT_EQ(::getpriority(PRIO_PROCESS, static_cast<id_t>(tid)), WalCheckpointer::kNice);
    {
      std::lock_guard<std::mutex> lock(logged_mutex);
      EXPECT_NE(logged.find("LimitNICE=+19"), std::string::npos)
          << "the operator is not told: " << logged;
    }
    // Past the threshold, then a commit at a time with pauses, each asking for a pass:
    // a writer that never paused grew the WAL faster than a thread at nice 19 copied it
    // with both cores taken by other tests, and no pass ended in 10 s on a CI machine.
    w.write_pages(25);
    for (auto until = std::chrono::steady_clock::now() + 20s;
         checkpointer.completed() == 0 && std::chrono::steady_clock::now() < until;) {
      w.write_pages(1);
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_GT(checkpointer.completed(), 0u);
  });
  Logger::set_sink(nullptr);
}

// LimitNICE=+19 in packaging/agentd.service (an RLIMIT_NICE of 1) is all a plain user
// needs for the thread to take the idle policy and be given the CPU back.
TEST(WalCheckpointerTest, UnderAPlainUserWithLimitNiceItTakesTheIdlePolicyAndLeavesIt) {
  NiceLimit nice_19(1);
  if (!nice_19.set()) GTEST_SKIP() << "this process may not raise its RLIMIT_NICE";
  without_sys_nice([] {
    Writer w;
    WalCheckpointer checkpointer(w.path, w.db, w.batcher, /*threshold_frames=*/20);
    ASSERT_TRUE(settles(checkpointer));
    const pid_t tid = checkpointer.thread_id();
    ASSERT_EQ(::sched_getscheduler(tid), SCHED_IDLE);
    Connection reader(w.path, /*read_only=*/true);
    reader.exec("BEGIN");
    {
      Statement snapshot = reader.prepare("SELECT count(*) FROM t");
      ASSERT_TRUE(snapshot.step());
    }
    w.write_pages(50);  // past twice the threshold, none of it copied past the reader
    EXPECT_EQ(::sched_getscheduler(tid), SCHED_OTHER);
    reader.exec("COMMIT");
  });
}

}  // namespace
}  // namespace agentrt::core
