#include "core/store/sqlite.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace agentrt::core
