// The session store's run records: starting a run creates its session in the same
// transaction, a finished run keeps its events with it, and runs stored before schema
// step 6 (a row per event) still replay.
#include "core/sessions/session_store.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::core {
namespace {

RunRecord a_run(const std::string& id, const std::string& session) {
  return {id, "cell", session, "ada", "m", "running", "", "2026-11-22T00:00:00Z", "", 0, 0};
}

std::vector<int64_t> seqs(const std::vector<nlohmann::json>& events) {
  std::vector<int64_t> out;
  for (const auto& e : events) out.push_back(e.at("seq").get<int64_t>());
  return out;
}

TEST(SessionStoreTest, StartingARunCreatesItsSessionOnce) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_1", "ses_1"));
  sessions.start_run(a_run("run_2", "ses_1"));
  auto session = sessions.find("cell", "ses_1");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->actor, "ada");
  auto run = sessions.find_run("cell", "run_2");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "running");
  EXPECT_EQ(run->session_id, "ses_1");
}

TEST(SessionStoreTest, AFinishedRunReplaysItsEventsAfterAnyPoint) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_1", "ses_1"));
  RunOutcome outcome{"run_1", "cell", "ses_1", "end_turn", 3, 4, {}, {}};
  nlohmann::json events = nlohmann::json::array();
  for (int64_t seq = 1; seq <= 4; ++seq)
    events.push_back({{"seq", seq}, {"type", seq == 4 ? "done" : "stream_delta"}});
  outcome.events_json = events.dump();
  outcome.new_messages.push_back({"assistant", nlohmann::json::array()});
  sessions.finish_run(outcome);

  EXPECT_EQ(seqs(sessions.run_events("run_1", 0)), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(seqs(sessions.run_events("run_1", 2)), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(sessions.run_events("run_1", 4).empty());
  auto run = sessions.find_run("cell", "run_1");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->output_tokens, 4);
  EXPECT_EQ(sessions.history("cell", "ses_1").size(), 1u);
}

// /chat's path: nothing written at start, the whole run in one insert at the end.
TEST(SessionStoreTest, ARunWrittenOnlyAtItsEndLooksLikeOneStartedThenFinished) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_1", "ses_1"));
  RunOutcome first{"run_1", "cell", "ses_1", "end_turn", 1, 2, "[]", {}};
  sessions.finish_run(first);
  store.write(
      [](Connection& db) { db.exec("UPDATE sessions SET updated_at = '2000-01-01T00:00:00Z'"); });
  const SessionRecord before = *sessions.find("cell", "ses_1");

  RunRecord start = a_run("run_2", "ses_1");
  start.actor = "someone_else";  // an existing session keeps its owner
  start.started_at = "2026-11-22T00:00:05Z";
  RunOutcome outcome{"run_2", "cell", "ses_1", "max_tokens", 3, 4, R"([{"seq":1}])", {}};
  outcome.new_messages.push_back({"user", nlohmann::json::array()});
  outcome.new_messages.push_back({"assistant", nlohmann::json::array()});
  sessions.finish_run(outcome, &start);

  auto run = sessions.find_run("cell", "run_2");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->reason, "max_tokens");
  EXPECT_EQ(run->started_at, "2026-11-22T00:00:05Z");
  EXPECT_FALSE(run->ended_at.empty());
  EXPECT_EQ(run->input_tokens, 3);
  EXPECT_EQ(run->output_tokens, 4);
  EXPECT_EQ(seqs(sessions.run_events("run_2", 0)), (std::vector<int64_t>{1}));
  const SessionRecord after = *sessions.find("cell", "ses_1");
  EXPECT_EQ(after.actor, "ada");
  EXPECT_EQ(after.created_at, before.created_at);
  EXPECT_GT(after.updated_at, before.updated_at) << "continuing a session marks it updated";
  EXPECT_EQ(sessions.history("cell", "ses_1").size(), 2u);

  RunRecord fresh = a_run("run_3", "ses_new");
  sessions.finish_run({"run_3", "cell", "ses_new", "end_turn", 0, 0, "[]", {}}, &fresh);
  auto created = sessions.find("cell", "ses_new");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->actor, "ada");
  EXPECT_EQ(created->created_at, fresh.started_at);
}

TEST(SessionStoreTest, RunsStoredBeforeStepSixReplayFromTheirEventRows) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_old", "ses_1"));
  store.write([](Connection& db) {
    db.exec("UPDATE runs SET status = 'done' WHERE id = 'run_old'");
    for (int seq = 1; seq <= 3; ++seq)
      db.prepare("INSERT INTO run_events(run_id, seq, event) VALUES('run_old', ?1, ?2)")
          .bind(1, int64_t{seq})
          .bind(2, nlohmann::json{{"seq", seq}}.dump())
          .run();
  });
  EXPECT_EQ(seqs(sessions.run_events("run_old", 1)), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(sessions.remove("cell", "ses_1"));
  int64_t left = -1;
  store.read([&](Connection& db) {
    Statement q = db.prepare("SELECT count(*) FROM run_events");
    q.step();
    left = q.column_int(0);
  });
  EXPECT_EQ(left, 0) << "deleting the session left its old event rows behind";
}

}  // namespace
}  // namespace agentrt::core
