#include "core/store/sqlite.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::core {
namespace {

TEST(SqliteTest, OpensWithWalAndForeignKeys) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  Statement mode = db.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");
  Statement keys = db.prepare("PRAGMA foreign_keys");
  ASSERT_TRUE(keys.step());
  EXPECT_EQ(keys.column_int(0), 1);
  Statement sync = db.prepare("PRAGMA synchronous");
  ASSERT_TRUE(sync.step());
  EXPECT_EQ(sync.column_int(0), 1);  // NORMAL
  Statement timeout = db.prepare("PRAGMA busy_timeout");
  ASSERT_TRUE(timeout.step());
  EXPECT_EQ(timeout.column_int(0), 5000);
}

int page_size(Connection& db) {
  Statement q = db.prepare("PRAGMA page_size");
  return q.step() ? static_cast<int>(q.column_int(0)) : -1;
}

// Fewer bytes per commit for a store created now (Connection::kNewPageSize); a store
// created with 4 KB pages, as agentd made them before, opens as it is and takes writes.
TEST(SqliteTest, ANewDatabaseGetsSmallPagesAndAnOlderOneKeepsItsOwn) {
  test_util::TempDir dir;
  Connection fresh(dir.file("new.db"));
  EXPECT_EQ(page_size(fresh), Connection::kNewPageSize);
  EXPECT_EQ(Connection::kNewPageSize, 2048);

  const std::string old_path = dir.file("old.db");
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(old_path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "PRAGMA page_size=4096; PRAGMA journal_mode=WAL;"
                           "CREATE TABLE t(v TEXT); INSERT INTO t VALUES('before')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  Connection old(old_path);
  EXPECT_EQ(page_size(old), 4096);
  old.prepare("INSERT INTO t VALUES(?)").bind(1, std::string(5000, 'x')).run();
  Statement rows = old.prepare("SELECT count(*), max(length(v)) FROM t");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(rows.column_int(0), 2);
  EXPECT_EQ(rows.column_int(1), 5000);
  Statement check = old.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}

TEST(SqliteTest, BindStepAndColumns) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT)");
  std::string name = "with 'quote' and a NUL:";
  name.push_back('\0');
  name += "tail";
  db.prepare("INSERT INTO t(name, note) VALUES(?, ?)").bind(1, name).bind_null(2).run();
  EXPECT_EQ(db.changes(), 1);
  const int64_t id = db.last_insert_rowid();

  Statement query = db.prepare("SELECT id, name, note FROM t WHERE id = ?");
  query.bind(1, id);
  ASSERT_TRUE(query.step());
  EXPECT_EQ(query.column_int(0), id);
  EXPECT_EQ(query.column_text(1), name);  // embedded NUL survives
  EXPECT_TRUE(query.column_is_null(2));
  EXPECT_EQ(query.column_text(2), "");
  EXPECT_FALSE(query.step());

  query.reset();  // bindings stay: the same row again
  ASSERT_TRUE(query.step());
  EXPECT_EQ(query.column_int(0), id);
}

TEST(SqliteTest, StatementMovesOwnership) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  Statement first = db.prepare("SELECT 42");
  Statement second(std::move(first));
  ASSERT_TRUE(second.step());
  EXPECT_EQ(second.column_int(0), 42);
}

TEST(SqliteTest, ErrorsCarrySqliteMessageAndPath) {
  test_util::TempDir dir;
  const std::string path = dir.file("a.db");
  Connection db(path);
  try {
    db.prepare("SELECT * FROM missing_table");
    FAIL() << "prepare should throw";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no such table"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  db.exec("CREATE TABLE u(x INTEGER UNIQUE)");
  db.exec("INSERT INTO u VALUES(1)");
  Statement insert = db.prepare("INSERT INTO u VALUES(1)");
  EXPECT_THROW(insert.run(), StoreError);
  EXPECT_THROW(db.exec("THIS IS NOT SQL"), StoreError);
}

TEST(SqliteTest, OpenFailureNamesThePath) {
  test_util::TempDir dir;
  const std::string path = dir.file("no/such/dir/a.db");
  try {
    Connection db(path);
    FAIL() << "open should throw";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(SqliteTest, ReadOnlyConnectionRefusesWrites) {
  test_util::TempDir dir;
  const std::string path = dir.file("a.db");
  Connection writer(path);
  writer.exec("CREATE TABLE t(x)");
  Connection reader(path, /*read_only=*/true);
  EXPECT_THROW(reader.exec("INSERT INTO t VALUES(1)"), StoreError);
  Statement count = reader.prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.column_int(0), 0);
}

int64_t mmap_size(Connection& db) {
  Statement q = db.prepare("PRAGMA mmap_size");
  return q.step() ? q.column_int(0) : -1;
}

// Readers map the file; the writer does not, so that a page it reads again is found in
// its own cache without first being looked up among the WAL's many copies of it
// (Connection's constructor).
TEST(SqliteTest, OnlyReadOnlyConnectionsMapTheFile) {
  test_util::TempDir dir;
  Connection writer(dir.file("a.db"));
  Connection reader(dir.file("a.db"), /*read_only=*/true);
  EXPECT_EQ(mmap_size(writer), 0);
  EXPECT_EQ(mmap_size(reader), 268435456);
}

// Statements are compiled once per connection and SQL text and reused; a reused
// statement must behave exactly like a fresh one.
TEST(SqliteTest, ACachedStatementComesBackWithoutBindingsOrOpenReads) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(n INTEGER)");
  db.exec("INSERT INTO t VALUES(1), (2), (3)");
  {
    Statement first = db.prepare("SELECT ?1");
    first.bind(1, int64_t{5});
    ASSERT_TRUE(first.step());
    EXPECT_EQ(first.column_int(0), 5);
  }
  Statement again = db.prepare("SELECT ?1");
  ASSERT_TRUE(again.step());
  EXPECT_TRUE(again.column_is_null(0)) << "a binding survived into the next use";
  {
    Statement abandoned = db.prepare("SELECT n FROM t ORDER BY n");
    ASSERT_TRUE(abandoned.step());  // left mid-iteration: its read must still end
  }
  EXPECT_NE(sqlite3_get_autocommit(db.handle()), 0) << "a cached statement kept a read open";
  db.exec("DROP TABLE t");  // would fail with SQLITE_LOCKED while a read was pending
}

// A borrowed binding is read where it lies, when the statement steps, and never after
// the statement went back: the cache clears it, so a freed buffer is never read again
// (the sanitizers' build would see it).
TEST(SqliteTest, ABorrowedBindingIsReadAtEachStepAndNotAfterTheStatementWentBack) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(s TEXT)");
  {
    std::string text = "first";
    Statement insert = db.prepare("INSERT INTO t VALUES(?1)");
    insert.bind_borrowed(1, text);
    text[0] = 'F';  // no copy was taken: the step reads what the buffer holds then
    insert.run();
    insert.reset();
    text = "later";
    insert.run();
  }
  {
    auto text = std::make_unique<std::string>("gone");
    Statement insert = db.prepare("INSERT INTO t VALUES(?1)");
    insert.bind_borrowed(1, *text);
  }  // back in the cache, unstepped, and then its buffer is freed
  Statement again = db.prepare("INSERT INTO t VALUES(?1)");
  again.run();
  std::vector<std::string> rows;
  Statement all = db.prepare("SELECT coalesce(s, 'null') FROM t ORDER BY rowid");
  while (all.step()) rows.push_back(all.column_text(0));
  EXPECT_EQ(rows, (std::vector<std::string>{"First", "later", "null"}));
}

TEST(SqliteTest, TheSameStatementCanRunInsideItsOwnLoop) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(n INTEGER)");
  db.exec("INSERT INTO t VALUES(1), (2)");
  const char* sql = "SELECT n FROM t WHERE n >= ? ORDER BY n";
  Statement outer = db.prepare(sql);
  outer.bind(1, int64_t{1});
  std::vector<int64_t> seen;
  while (outer.step()) {
    Statement inner = db.prepare(sql);
    inner.bind(1, outer.column_int(0));
    while (inner.step()) seen.push_back(inner.column_int(0));
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 2}));
}

int compiled_statements(sqlite3* db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s; s = sqlite3_next_stmt(db, s)) ++n;
  return n;
}

// The cache is keyed by a view of its own copy of the text: a caller's text may be a
// temporary, and the same text from another buffer finds the statement compiled before.
TEST(SqliteTest, TheCacheKeepsItsOwnCopyOfTheText) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(n INTEGER)");
  const int before = compiled_statements(db.handle());
  {
    auto text = std::make_unique<std::string>("INSERT INTO t VALUES(?1)");
    Statement insert = db.prepare(*text);
    insert.bind(1, int64_t{1});
    insert.run();
    text->assign(text->size(), '#');  // the caller's buffer changes, then goes
  }
  for (int64_t n = 2; n <= 3; ++n) {
    std::string same = "INSERT INTO t VALUES(?1)";
    Statement insert = db.prepare(same);
    insert.bind(1, n);
    insert.run();
  }
  EXPECT_EQ(compiled_statements(db.handle()), before + 1);
  Statement count = db.prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.column_int(0), 3);
}

TEST(SqliteTest, CachedStatementsFollowSchemaChanges) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  db.exec("CREATE TABLE t(a INTEGER)");
  db.exec("INSERT INTO t VALUES(1)");
  { db.prepare("SELECT * FROM t").run(); }
  db.exec("ALTER TABLE t ADD COLUMN b INTEGER DEFAULT 7");
  Statement query = db.prepare("SELECT * FROM t");
  ASSERT_TRUE(query.step());
  EXPECT_EQ(query.column_int(1), 7) << "the cached statement still saw one column";
}

}  // namespace
}  // namespace agentrt::core

namespace agentrt::core {
namespace {

// Rows of 1 KB: `bytes` of table pages to rewrite in one savepoint.
void fill(Connection& db, int64_t bytes) {
  db.exec("CREATE TABLE pages(k INTEGER PRIMARY KEY, b BLOB NOT NULL)");
  db.exec("BEGIN");
  for (int64_t k = 0; k < bytes / 1024; ++k)
    db.prepare("INSERT INTO pages(k, b) VALUES(?, zeroblob(1000))").bind(1, k).run();
  db.exec("COMMIT");
}

// SQLite's temporary files this process holds open: a sub-journal that outgrew memory
// is one, created in the temporary directory and unlinked at once.
size_t temporary_files_open() {
  size_t n = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code gone;
    const std::string target = std::filesystem::read_symlink(fd.path(), gone).filename().string();
    if (!gone && target.rfind("etilqs_", 0) == 0) ++n;
  }
  return n;
}

// Rewrites every page in a savepoint inside a transaction, as a group commit's writer
// does: SQLite copies each page it changes into the savepoint's sub-journal. Returns
// the temporary files open before the savepoint ends.
size_t rewrite_in_savepoint(Connection& db) {
  db.exec("BEGIN IMMEDIATE; SAVEPOINT job; UPDATE pages SET b = zeroblob(1001);");
  const size_t files = temporary_files_open();
  db.exec("RELEASE job; COMMIT");
  return files;
}

// A group commit's savepoints journal what each writer changes; with SQLite's default
// threshold (64 KiB) more than that went to a temporary file created and deleted per
// commit.
TEST(SqliteTest, ASavepointJournalWithinItsBoundStaysInMemory) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  fill(db, Connection::kStatementJournalInMemory / 2);
  const size_t before = temporary_files_open();
  EXPECT_EQ(rewrite_in_savepoint(db), before);
  Statement changed = db.prepare("SELECT count(*) FROM pages WHERE length(b) = 1001");
  ASSERT_TRUE(changed.step());
  EXPECT_EQ(changed.column_int(0), Connection::kStatementJournalInMemory / 2 / 1024);
}

// ...but not without bound: a statement that rewrites much of the database (a cell's
// delete) moves its journal to a file instead of holding it all in memory. The move
// writes what memory held in one call, which the unix VFS takes whole only below
// 128 KiB (it fails larger ones with SQLITE_FULL); a rollback to the savepoint reads
// the file back.
TEST(SqliteTest, ASavepointJournalPastItsBoundGoesToAFileAndRollsBack) {
  test_util::TempDir dir;
  Connection db(dir.file("a.db"));
  const int64_t bytes = 4 * Connection::kStatementJournalInMemory + (1 << 20);
  fill(db, bytes);
  const size_t before = temporary_files_open();
  db.exec("BEGIN IMMEDIATE; SAVEPOINT job; UPDATE pages SET b = zeroblob(1001);");
  EXPECT_EQ(temporary_files_open(), before + 1);
  db.exec("ROLLBACK TO job; RELEASE job; COMMIT");
  Statement changed = db.prepare("SELECT count(*) FROM pages WHERE length(b) <> 1000");
  ASSERT_TRUE(changed.step());
  EXPECT_EQ(changed.column_int(0), 0);
  EXPECT_EQ(rewrite_in_savepoint(db), before + 1);
  Statement rewritten = db.prepare("SELECT count(*) FROM pages WHERE length(b) = 1001");
  ASSERT_TRUE(rewritten.step());
  EXPECT_EQ(rewritten.column_int(0), bytes / 1024);
}

}  // namespace
}  // namespace agentrt::core
