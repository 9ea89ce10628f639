// The WAL-buffering VFS shim (core/store/wal_buffer_vfs.h): a commit is one write, and
// buffering never hides a committed row from a reader, from a crash, or an I/O error
// from the writer.
#include "core/store/wal_buffer_vfs.h"
#include "core/store/state_store.h"
#include "tests/core/temp_dir.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

const std::vector<Migration> kSchema = {
    {1, "rows", "CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)"},
    {2, "spill", "CREATE TABLE wide(k INTEGER PRIMARY KEY, b TEXT NOT NULL)"}};

// Row k's text: its length spans zero to several pages, so commits span several frames.
std::string payload(int64_t k) {
  std::string text(static_cast<size_t>(100 + (k * 7919) % 14000), ' ');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + (k + i) % 26);
  return text;
}

void insert(Connection& db, int64_t k) {
  db.prepare("INSERT INTO t(k, b) VALUES(?, ?)").bind(1, k).bind(2, payload(k)).run();
}

int64_t query_int(Connection& db, const std::string& sql) {
  Statement query = db.prepare(sql);
  if (!query.step()) throw StoreError("no row for " + sql);
  return query.column_int(0);
}

std::string integrity(Connection& db) {
  Statement check = db.prepare("PRAGMA integrity_check");
  return check.step() ? check.column_text(0) : std::string("(no answer)");
}

// Rows 1..n and nothing else, each with its own text.
void expect_rows(Connection& db, int64_t n) {
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM t"), n);
  Statement rows = db.prepare("SELECT k, b FROM t ORDER BY k");
  int64_t expected = 0;
  while (rows.step()) {
    ++expected;
    ASSERT_EQ(rows.column_int(0), expected);
    ASSERT_EQ(rows.column_text(1), payload(expected)) << "row " << expected;
  }
  EXPECT_EQ(expected, n);
}

off_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// Runs `child` in a forked process; returns its wait status. The child ends with
// _exit (what it returns, or 100 when it throws): no destructors, no flushes of ours.
int run_child(const std::function<int()>& child) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 100;
    try {
      code = child();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(WalBufferVfs, StoreConnectionsOpenThroughTheShim) {
  test_util::TempDir tmp;
  Connection db(tmp.file("a.db"));
  sqlite3_vfs* vfs = nullptr;
  ASSERT_EQ(sqlite3_file_control(db.handle(), "main", SQLITE_FCNTL_VFS_POINTER, &vfs), SQLITE_OK);
  ASSERT_NE(vfs, nullptr);
  EXPECT_STREQ(vfs->zName, wal_buffer_vfs());
}

TEST(WalBufferVfs, AMultiPageCommitIsOneWrite) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  Connection db(path);
  const WalWriteCounts at_start = wal_write_counts();
  db.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
  WalWriteCounts after = wal_write_counts();
  // The first commit also writes the WAL header, which SQLite syncs before the frames
  // (synchronous=NORMAL): one write for the header, one for the frames.
  EXPECT_EQ(after.written - at_start.written, 2u);
  EXPECT_GE(after.requested - at_start.requested, 3u);

  // About 60 KB in some 30 frames: one write.
  const off_t frame = 24 + Connection::kNewPageSize;
  off_t wal_before = file_size(path + "-wal");
  WalWriteCounts before = wal_write_counts();
  db.exec("BEGIN");
  for (int64_t k = 1; k <= 8; ++k) insert(db, k);
  db.exec("COMMIT");
  after = wal_write_counts();
  uint64_t requested = after.requested - before.requested;
  // SQLite asked for a header and a page per frame...
  EXPECT_GE(requested, 2u * 12);
  EXPECT_EQ(requested % 2, 0u);
  // ...which reached the file as one write, and all of them did.
  EXPECT_EQ(after.written - before.written, 1u);
  EXPECT_EQ(file_size(path + "-wal") - wal_before, static_cast<off_t>(requested / 2) * frame);

  // About 170 KB: a write per 120 KB.
  wal_before = file_size(path + "-wal");
  before = wal_write_counts();
  db.exec("BEGIN");
  for (int64_t k = 9; k <= 30; ++k) insert(db, k);
  db.exec("COMMIT");
  after = wal_write_counts();
  requested = after.requested - before.requested;
  EXPECT_GE(requested, 2u * 40);
  EXPECT_EQ(after.written - before.written, 2u);
  EXPECT_EQ(file_size(path + "-wal") - wal_before, static_cast<off_t>(requested / 2) * frame);

  Connection reader(path, /*read_only=*/true);
  expect_rows(reader, 30);
}

TEST(WalBufferVfs, AReaderSeesEachCommitAtOnce) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  Connection writer(path);
  writer.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
  Connection reader(path, /*read_only=*/true);
  constexpr int64_t kCommits = 400;
  for (int64_t k = 1; k <= kCommits; ++k) {
    insert(writer, k);
    ASSERT_EQ(query_int(reader, "SELECT count(*) FROM t"), k);
    {
      Statement row = reader.prepare("SELECT b FROM t WHERE k = ?");
      row.bind(1, k);
      ASSERT_TRUE(row.step());
      ASSERT_EQ(row.column_text(0), payload(k));
    }
    // Restarts the WAL now and then, so commits also land over an earlier generation.
    if (k % 97 == 0) {
      ASSERT_EQ(sqlite3_wal_checkpoint_v2(writer.handle(), nullptr, SQLITE_CHECKPOINT_RESTART,
                                          nullptr, nullptr),
                SQLITE_OK);
    }
  }
  expect_rows(reader, kCommits);
  EXPECT_EQ(integrity(reader), "ok");
}

TEST(WalBufferVfs, ConcurrentReadersNeverSeeAPartialCommit) {
  test_util::TempDir tmp;
  std::atomic<int64_t> committed{0};
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  {
    StateStore store(tmp.path(), kSchema);
    std::thread reader([&] {
      while (!done.load()) {
        const int64_t at_least = committed.load();
        store.read([&](Connection& db) {
          // Every row visible is whole: a commit published before all its frames were in
          // the file would read as missing or foreign page content here.
          Statement rows =
              db.prepare("SELECT k, length(b), substr(b, 1, 30), substr(b, -30) FROM t");
          int64_t n = 0;
          while (rows.step()) {
            ++n;
            const std::string text = payload(rows.column_int(0));
            if (rows.column_int(1) != static_cast<int64_t>(text.size()) ||
                rows.column_text(2) != text.substr(0, 30) ||
                rows.column_text(3) != text.substr(text.size() - 30)) {
              ++bad;
            }
          }
          if (n < at_least) ++bad;
        });
      }
    });
    for (int64_t k = 1; k <= 300; ++k) {
      store.write([&](Connection& db) { insert(db, k); });
      committed.store(k);
    }
    done.store(true);
    reader.join();
  }
  EXPECT_EQ(bad.load(), 0);
  Connection db(tmp.file("state.db"));
  EXPECT_EQ(integrity(db), "ok");
  expect_rows(db, 300);
}

// The child commits through the store, then dies by SIGKILL in the middle of another
// transaction. Every commit acknowledged must be in the WAL file by then: the parent
// drops the -shm file, so SQLite rebuilds its index from the WAL alone, checking every
// frame's checksum.
TEST(WalBufferVfs, CommittedRowsSurviveAKill) {
  test_util::TempDir tmp;
  constexpr int64_t kCommits = 150;
  constexpr int64_t kWide = 400;
  const int status = run_child([&] {
    StateStore store(tmp.path(), kSchema);
    for (int64_t k = 1; k <= kCommits; ++k) store.write([&](Connection& db) { insert(db, k); });
    // A transaction bigger than the page cache spills frames early and overwrites
    // them at commit, rewriting their headers' checksums after the commit frame.
    store.write([&](Connection& db) {
      db.exec("PRAGMA cache_size=8");
      for (int64_t k = 1; k <= kWide; ++k) {
        db.prepare("INSERT INTO wide(k, b) VALUES(?, ?)").bind(1, k).bind(2, payload(k)).run();
      }
      db.exec("UPDATE wide SET b = upper(b)");
    });
    store.write([&](Connection& db) {
      for (int64_t k = kCommits + 1; k <= kCommits + 50; ++k) insert(db, k);
      ::raise(SIGKILL);
    });
    return 1;  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  const std::string path = tmp.file("state.db");
  ASSERT_GT(file_size(path + "-wal"), 0);
  ASSERT_EQ(::unlink((path + "-shm").c_str()), 0);
  Connection db(path);
  EXPECT_EQ(integrity(db), "ok");
  expect_rows(db, kCommits);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM wide"), kWide);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM wide WHERE b <> upper(b)"), 0);
}

// Commits rows 21 to 25 with the file size limit at the WAL's size, so that the commit's
// write fails; rolls back what is left. False when the commit went through after all.
bool commit_fails_past_the_limit(Connection& writer, const std::string& wal, rlimit& saved) {
  ::getrlimit(RLIMIT_FSIZE, &saved);
  rlimit limit = saved;
  limit.rlim_cur = static_cast<rlim_t>(file_size(wal));
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return false;
  bool failed = false;
  try {
    writer.exec("BEGIN");
    for (int64_t k = 21; k <= 25; ++k) insert(writer, k);
    writer.exec("COMMIT");
  } catch (const StoreError&) {
    failed = true;
  }
  if (!sqlite3_get_autocommit(writer.handle())) writer.exec("ROLLBACK");
  return failed;
}

// A write that fails (here: past RLIMIT_FSIZE) fails the COMMIT that needed it, as it
// would without buffering; the rows are not visible, and later commits work.
TEST(WalBufferVfs, AFailedWriteFailsTheCommit) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  const int status = run_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    Connection writer(path);
    writer.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
    for (int64_t k = 1; k <= 20; ++k) insert(writer, k);
    Connection reader(path, /*read_only=*/true);
    if (query_int(reader, "SELECT count(*) FROM t") != 20) return 2;

    rlimit saved{};
    const bool failed = commit_fails_past_the_limit(writer, path + "-wal", saved);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    if (!failed) return 4;
    if (query_int(reader, "SELECT count(*) FROM t") != 20) return 5;
    if (query_int(writer, "SELECT count(*) FROM t") != 20) return 6;
    insert(writer, 21);
    if (query_int(reader, "SELECT count(*) FROM t") != 21) return 7;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  Connection db(path);
  EXPECT_EQ(integrity(db), "ok");
  expect_rows(db, 21);
}

// The frames of a commit whose write failed are dropped, never written later (audit 5c,
// F2): they stayed buffered and every later call on the WAL tried them again. Once the
// disk had room again (here: the file size limit lifted before the rollback), a
// complete commit with good checksums sat past the WAL's end, and the recovery after a
// crash applied it: a transaction its client had been told failed.
rlimit no_file_limit{};
// The write that failed is the one that made room: as if another process freed space
// just then, so that any later try of the same bytes succeeds.
extern "C" void lift_file_limit(int) {
  ::setrlimit(RLIMIT_FSIZE, &no_file_limit);
}

TEST(WalBufferVfs, AFailedCommitStaysFailedThroughACrash) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  const int status = run_child([&] {
    Connection writer(path);
    writer.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
    for (int64_t k = 1; k <= 20; ++k) insert(writer, k);
    std::signal(SIGXFSZ, lift_file_limit);
    if (!commit_fails_past_the_limit(writer, path + "-wal", no_file_limit)) return 4;
    ::raise(SIGKILL);
    return 1;  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  // The index from the WAL alone, as after a machine's crash: every frame's checksum read.
  ASSERT_EQ(::unlink((path + "-shm").c_str()), 0);
  Connection db(path);
  EXPECT_EQ(integrity(db), "ok");
  expect_rows(db, 20);
}

// A write to a database whose file was removed (audit 5c, F8: the data dir deleted under
// a running agentd) or replaced is refused, not acknowledged and lost at the next start.
// Reads go on from what the connection has open.
int sqlite_code_of_insert(Connection& db, int64_t k) {
  try {
    insert(db, k);
    return SQLITE_OK;
  } catch (const StoreError& e) {
    return e.sqlite_code();
  }
}

TEST(WalBufferVfs, AWriteToARemovedDatabaseIsRefused) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  Connection writer(path);
  writer.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
  insert(writer, 1);
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // the path is looked at every 50 ms
  const int code = sqlite_code_of_insert(writer, 2);
  EXPECT_EQ(code, SQLITE_READONLY_DBMOVED) << sqlite3_errstr(code);
  EXPECT_TRUE(StoreError("refused", code).for_now());
  EXPECT_EQ(query_int(writer, "SELECT count(*) FROM t"), 1);
}

TEST(WalBufferVfs, AWriteToAReplacedDatabaseIsRefused) {
  test_util::TempDir tmp;
  const std::string path = tmp.file("a.db");
  Connection writer(path);
  writer.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, b TEXT NOT NULL)");
  insert(writer, 1);
  { Connection other(tmp.file("b.db")); }
  ASSERT_EQ(::rename(tmp.file("b.db").c_str(), path.c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(sqlite_code_of_insert(writer, 2), SQLITE_READONLY_DBMOVED);
}

}  // namespace
}  // namespace agentrt::core
