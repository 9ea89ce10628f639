// Migration 7 rebuilds sessions, messages and runs without AUTOINCREMENT. A store made
// by an older agentd keeps every row and seq and its indexes and constraints, and goes
// on after its largest seq.
#include "core/store/state_store.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::core {
namespace {

std::vector<std::string> column(const StateStore& store, const std::string& sql) {
  std::vector<std::string> values;
  store.read([&](Connection& db) {
    Statement query = db.prepare(sql);
    while (query.step()) values.push_back(query.column_text(0));
  });
  return values;
}

using Texts = std::vector<std::string>;

// What an agentd before migration 7 left: rows with gaps where the last ones of each
// table were deleted (AUTOINCREMENT remembered their seqs).
void fill_as_version_6(const std::string& dir) {
  const std::vector<Migration> all = schema_migrations();
  std::vector<Migration> before;
  for (const Migration& m : all)
    if (m.version <= 6) before.push_back(m);
  StateStore old(dir, before);
  ASSERT_EQ(old.schema_version(), 6);
  old.write([](Connection& db) {
    db.exec(
        "INSERT INTO sessions(cell, id, actor, created_at, updated_at) VALUES"
        " ('c', 's1', 'alice', 't1', 'u1'), ('c', 's2', 'bob', 't2', 'u2'),"
        " ('c', 's3', 'alice', 't3', 'u3');"
        "DELETE FROM sessions WHERE id = 's3';"
        "INSERT INTO messages(cell, session_id, run_id, role, content, created_at) VALUES"
        " ('c', 's1', 'r1', 'user', '[1]', 't'), ('c', 's1', 'r1', 'assistant', '[2]', 't'),"
        " ('c', 's2', NULL, 'user', '[3]', 't'), ('c', 's3', 'r3', 'user', '[4]', 't');"
        "DELETE FROM messages WHERE session_id = 's3';"
        "INSERT INTO runs(id, cell, session_id, actor, model, status, reason, input_tokens,"
        " output_tokens, started_at, ended_at, events) VALUES"
        " ('r1', 'c', 's1', 'alice', 'm', 'done', 'end_turn', 5, 7, 't', 'e', '[{\"seq\":1}]'),"
        " ('r2', 'c', 's2', 'bob', 'm', 'running', NULL, NULL, NULL, 't', NULL, NULL),"
        " ('r3', 'c', 's3', 'alice', 'm', 'done', 'end_turn', 1, 1, 't', 'e', '[]');"
        "DELETE FROM runs WHERE id = 'r3';");
  });
}

TEST(RunTablesMigration, KeepsEveryRowSeqIndexAndConstraint) {
  test_util::TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(fill_as_version_6(tmp.path()));
  StateStore store(tmp.path());
  EXPECT_EQ(store.schema_version(), schema_migrations().back().version);

  EXPECT_EQ(column(store,
                   "SELECT seq || ' ' || id || ' ' || actor || ' ' || created_at || ' ' ||"
                   " updated_at FROM sessions ORDER BY seq"),
            (Texts{"1 s1 alice t1 u1", "2 s2 bob t2 u2"}));
  EXPECT_EQ(column(store,
                   "SELECT seq || ' ' || session_id || ' ' || ifnull(run_id, '-') || ' ' ||"
                   " role || ' ' || content FROM messages ORDER BY seq"),
            (Texts{"1 s1 r1 user [1]", "2 s1 r1 assistant [2]", "3 s2 - user [3]"}));
  EXPECT_EQ(column(store,
                   "SELECT seq || ' ' || id || ' ' || status || ' ' || ifnull(reason, '-')"
                   " || ' ' || ifnull(input_tokens, '-') || ' ' || ifnull(events, '-')"
                   " FROM runs ORDER BY seq"),
            (Texts{"1 r1 done end_turn 5 [{\"seq\":1}]", "2 r2 running - - -"}));

  EXPECT_EQ(column(store,
                   "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN"
                   " ('sessions', 'messages', 'runs') AND sql IS NOT NULL ORDER BY name"),
            (Texts{"messages_by_session", "runs_by_session", "sessions_by_actor"}));
  EXPECT_EQ(column(store,
                   "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND"
                   " tbl_name IN ('sessions', 'runs') AND sql IS NULL"),
            (Texts{"2"}))
      << "UNIQUE(cell, id) of sessions and UNIQUE(id) of runs";
  EXPECT_EQ(column(store,
                   "SELECT name FROM sqlite_schema WHERE sql LIKE '%AUTOINCREMENT%' AND"
                   " name IN ('sessions', 'messages', 'runs')"),
            Texts{});
  EXPECT_EQ(column(store,
                   "SELECT name FROM sqlite_sequence WHERE name IN"
                   " ('sessions', 'messages', 'runs', 'sessions_v7', 'messages_v7',"
                   " 'runs_v7')"),
            Texts{});

  store.write([](Connection& db) {
    EXPECT_THROW(db.exec("INSERT INTO sessions(cell, id, actor, created_at, updated_at)"
                         " VALUES ('c', 's1', 'x', 't', 't')"),
                 StoreError);
    EXPECT_THROW(db.exec("INSERT INTO runs(id, cell, session_id, actor, model, status,"
                         " started_at) VALUES ('r1', 'c', 's9', 'x', 'm', 'running', 't')"),
                 StoreError);
    db.exec(
        "INSERT INTO messages(cell, session_id, run_id, role, content, created_at)"
        " VALUES ('c', 's1', 'r4', 'user', '[5]', 't')");
  });
  EXPECT_EQ(column(store, "SELECT seq FROM messages WHERE content = '[5]'"), (Texts{"4"}))
      << "after the largest seq kept";
}

}  // namespace
}  // namespace agentrt::core
