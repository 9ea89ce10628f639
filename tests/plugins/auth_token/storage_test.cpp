// What auth.db holds: hashes, never secrets; private file modes; a versioned schema
// that survives the instance.
#include "auth_token_fixture.h"
#include "base64url.h"
#include "token_format.h"

#include <gmock/gmock.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

namespace agentrt::test {
namespace {

using ::testing::HasSubstr;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string as_bytes(const auth_token::Sha256Digest& d) {
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

// A separate connection, as an operator's sqlite3 shell would open the file.
class AuthTokenStorage : public AuthTokenTest {
 protected:
  std::string store_bytes() const { return read_file(db_path()) + read_file(db_path() + "-wal"); }
  static void expect_no_secret(const std::string& bytes, const json& issued) {
    std::string token = issued["token"];
    std::string secret = token.substr(20);
    EXPECT_EQ(bytes.find(token), std::string::npos);
    EXPECT_EQ(bytes.find(secret), std::string::npos);
    EXPECT_EQ(bytes.find(secret.substr(0, 16)), std::string::npos);
    EXPECT_EQ(bytes.find(*auth_token::base64url_decode(secret)), std::string::npos);
  }
};

TEST_F(AuthTokenStorage, OnlyTheHashOfTheSecretIsAtRest) {
  std::vector<json> issued;
  for (int i = 0; i < 5; ++i) issued.push_back(issue_for("hash-actor-" + std::to_string(i)));

  std::string bytes = store_bytes();
  Sqlite db(db_path());
  for (const json& r : issued) {
    expect_no_secret(bytes, r);
    std::string hash = as_bytes(auth_token::hash_secret(r["token"].get<std::string>().substr(20)));
    // Controls: the same bytes do hold the record, so the checks above read the store.
    EXPECT_NE(bytes.find(hash), std::string::npos);
    EXPECT_NE(bytes.find(r["actor"].get<std::string>()), std::string::npos);
    EXPECT_EQ(db.text("SELECT secret_hash FROM tokens WHERE id = ?1", r["id"]), hash);
  }

  close();  // the last connection checkpoints the WAL into the main file
  std::string after = store_bytes();
  for (const json& r : issued) expect_no_secret(after, r);
}

TEST_F(AuthTokenStorage, TheStoreFilesArePrivate) {
  issue_for("mode");
  struct stat st {};
  ASSERT_EQ(stat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((db_path() + "-wal").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AuthTokenStorage, AWiderModeOnAnExistingStoreIsNarrowed) {
  close();
  ASSERT_EQ(chmod(db_path().c_str(), 0644), 0);
  open();
  struct stat st {};
  ASSERT_EQ(stat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AuthTokenStorage, TheSchemaIsVersionedAndInWalMode) {
  Sqlite db(db_path());
  EXPECT_EQ(db.text("PRAGMA user_version"), "3");
  EXPECT_EQ(db.text("PRAGMA journal_mode"), "wal");
}

// A store of schema 1 numbers its tokens in the order it listed them, (created_at,
// id), and goes on from there.
TEST_F(AuthTokenStorage, AStoreOfSchemaOneKeepsItsListOrderAndGoesOn) {
  close();
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_path() + suffix).c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  const char* v1 = R"sql(
CREATE TABLE tokens(
  id TEXT PRIMARY KEY NOT NULL,
  secret_hash BLOB NOT NULL CHECK(length(secret_hash) = 32),
  actor TEXT NOT NULL, cell TEXT, admin INTEGER NOT NULL CHECK(admin IN (0, 1)),
  created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER) WITHOUT ROWID;
CREATE INDEX tokens_live_by_age ON tokens(created_at DESC, id DESC) WHERE revoked_at IS NULL;
INSERT INTO tokens VALUES ('bbbbbbbbbbbbbbbb', zeroblob(32), 'b', NULL, 0, 100, NULL, NULL),
                          ('aaaaaaaaaaaaaaaa', zeroblob(32), 'a', NULL, 0, 100, NULL, NULL),
                          ('cccccccccccccccc', zeroblob(32), 'c', NULL, 0, 50, NULL, NULL);
PRAGMA user_version = 1;)sql";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  open();
  std::string newest = issue_for("new")["id"];
  const json page = list();
  std::vector<std::string> listed;
  for (const json& r : page["data"]) listed.push_back(r["id"]);
  EXPECT_EQ(listed, (std::vector<std::string>{newest, "bbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaa",
                                              "cccccccccccccccc"}));
}

TEST_F(AuthTokenStorage, ANewerSchemaIsRefused) {
  close();
  Sqlite(db_path()).text("PRAGMA user_version = 99");
  Failure f = failure([&] { open(); });
  EXPECT_EQ(f.code, AGENTRT_ERR_INTERNAL);
  EXPECT_THAT(f.message, HasSubstr("schema version 99"));
}

// Opening a store already at this plugin's version reads it only: it neither waits for
// nor takes the write lock, so agentd starts while `agentd admin-token` (another
// process) is mid-write, and a start writes nothing.
TEST_F(AuthTokenStorage, AnUpToDateStoreOpensWithoutTheWriteLock) {
  close();
  Sqlite writer(db_path());
  writer.text("BEGIN IMMEDIATE");
  auto started = std::chrono::steady_clock::now();
  EXPECT_NO_THROW(open());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
  writer.text("ROLLBACK");
}

TEST_F(AuthTokenStorage, TokensOutliveTheInstance) {
  json kept = issue({{"ttl_s", 3600}, {"actor", "kept"}, {"cell", "eu"}});
  json admin = issue({{"ttl_s", nullptr}, {"actor", "root"}, {"admin", true}});
  json gone = issue_for("gone");
  revoke(gone["id"]);
  close();
  open();
  EXPECT_EQ(verify(kept["token"])["cell"], "eu");
  EXPECT_EQ(verify(admin["token"])["admin"], true);
  EXPECT_EQ(verify_failure(gone["token"]).message, "token revoked");
  EXPECT_EQ(list()["data"].size(), 2u);
}

// Every token ever issued once stayed in auth.db (30,000 expired of 30,001).
// A dead one, expired or revoked, is kept a week so that its client is told why it
// fails, then removed: all that are due at a start, a few more at each issue. The
// newest row stays, since the next token is numbered after it.
TEST_F(AuthTokenStorage, DeadTokensGoAWeekAfterTheyDied) {
  const int64_t now = std::time(nullptr), days = 24 * 3600;
  std::vector<json> t;
  for (const char* actor : {"expired", "revoked", "recent", "live"}) t.push_back(issue_for(actor));
  Sqlite db(db_path());
  const std::string week_ago = std::to_string(now - 8 * days);
  db.text("UPDATE tokens SET expires_at = " + week_ago + " WHERE id = ?1", t[0]["id"]);
  db.text("UPDATE tokens SET revoked_at = " + week_ago + " WHERE id = ?1", t[1]["id"]);
  db.text("UPDATE tokens SET revoked_at = " + std::to_string(now - 6 * days) + " WHERE id = ?1",
          t[2]["id"]);
  close();
  open();
  EXPECT_EQ(db.text("SELECT group_concat(actor) FROM (SELECT actor FROM tokens ORDER BY issued)"),
            "recent,live");
  EXPECT_EQ(verify_failure(t[2]["token"]).message, "token revoked");
  EXPECT_EQ(verify(t[3]["token"])["actor"], "live");

  db.text("UPDATE tokens SET revoked_at = " + week_ago + " WHERE id = ?1", t[2]["id"]);
  json next = issue_for("next");
  EXPECT_EQ(db.text("SELECT group_concat(actor) FROM (SELECT actor FROM tokens ORDER BY issued)"),
            "live,next");
  db.text("UPDATE tokens SET revoked_at = " + week_ago + " WHERE id = ?1", next["id"]);
  close();
  open();
  EXPECT_EQ(db.text("SELECT count(*) FROM tokens"), "2") << "the newest row stays";
  EXPECT_NE(issue_for("after")["id"], next["id"]);
  EXPECT_EQ(list()["data"].size(), 2u);
}

// A guest (`agentd admin-token`, ABI 1.6) may run beside an older agentd: it upgrades
// no store, makes none, and removes no dead token, so that it only adds a token.
TEST_F(AuthTokenStorage, AGuestOnlyAddsTokens) {
  json dead = issue_for("dead");
  json live = issue_for("live");
  close();
  Sqlite db(db_path());
  db.text("UPDATE tokens SET revoked_at = 1000 WHERE id = ?1", dead["id"]);
  db.text("PRAGMA user_version = 2");
  Failure older = failure([&] { open_as_guest(); });
  EXPECT_EQ(older.code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_THAT(older.message, HasSubstr("older than this plugin's 3"));
  EXPECT_EQ(db.text("PRAGMA user_version"), "2");
  db.text("PRAGMA user_version = 3");
  open_as_guest();
  issue_for("minted");
  EXPECT_EQ(db.text("SELECT count(*) FROM tokens"), "3") << "the guest removed the dead token";
  close();
  open();
  EXPECT_EQ(db.text("SELECT count(*) FROM tokens"), "2") << "the owner removes it";

  close();
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_path() + suffix).c_str());
  Failure missing = failure([&] { open_as_guest(); });
  EXPECT_EQ(missing.code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_THAT(missing.message, HasSubstr("there is no"));
  EXPECT_FALSE(std::filesystem::exists(db_path()));
}

// Verified rows are kept in memory for a second (token_store.h); a revoke written to
// auth.db by someone else must still bite once that second is over.
TEST_F(AuthTokenStorage, ARevokeWrittenByAnotherProcessIsSeenWithinASecond) {
  json r = issue_for("elsewhere");
  ASSERT_EQ(verify(r["token"])["actor"], "elsewhere");
  Sqlite(db_path()).text("UPDATE tokens SET revoked_at = 1 WHERE id = ?1", r["id"]);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(verify_failure(r["token"]).message, "token revoked");
}

}  // namespace
}  // namespace agentrt::test
