// The session store's run records: starting a run creates its session in the same
// transaction, a finished run keeps its events with it, and runs stored before schema
// step 6 (a row per event) still replay.
#include "core/sessions/session_store.h"
#include "core/domain/errors.h"
#include "core/runs/context_window.h"
#include "tests/core/message_util.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
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
  outcome.new_messages.push_back(test_util::message_of("assistant", nlohmann::json::array()));
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
  outcome.continues = true;
  outcome.new_messages.push_back(test_util::message_of("user", nlohmann::json::array()));
  outcome.new_messages.push_back(test_util::message_of("assistant", nlohmann::json::array()));
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

  // A run that began on a stored session, deleted before the run stored its end: the
  // session is made anew rather than left without a row for its messages.
  RunRecord again = a_run("run_4", "ses_gone");
  RunOutcome continued{"run_4", "cell", "ses_gone", "end_turn", 0, 0, "[]", {}};
  continued.continues = true;
  continued.new_messages.push_back(test_util::message_of("user", nlohmann::json::array()));
  sessions.finish_run(continued, &again);
  auto remade = sessions.find("cell", "ses_gone");
  ASSERT_TRUE(remade);
  EXPECT_EQ(remade->actor, "ada");
  EXPECT_EQ(sessions.history("cell", "ses_gone").size(), 1u);
}

// Two runs that each found no session under a new id, by two actors: the one stored
// second is refused, and none of its turn goes into the other actor's session, whether it
// stores its start (a /run) or only its end (a /chat).
TEST(SessionStoreTest, ARunNeverAddsToASessionAnotherActorStoredMeanwhile) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  RunRecord alice = a_run("run_a", "ses_new");
  alice.actor = "alice";
  RunOutcome hers{"run_a", "cell", "ses_new", "end_turn", 0, 0, "[]", {}};
  hers.new_messages.push_back(test_util::message_of("user", nlohmann::json::array()));
  sessions.finish_run(hers, &alice);

  RunRecord bob = a_run("run_b", "ses_new");
  bob.actor = "bob";
  RunOutcome his{"run_b", "cell", "ses_new", "end_turn", 0, 0, "[]", {}};
  his.new_messages.push_back(test_util::message_of("user", nlohmann::json::array()));
  EXPECT_THROW(sessions.finish_run(his, &bob), DomainError);
  RunRecord bob_streams = a_run("run_c", "ses_new");
  bob_streams.actor = "bob";
  EXPECT_THROW(sessions.start_run(bob_streams), DomainError);

  EXPECT_EQ(sessions.find("cell", "ses_new")->actor, "alice");
  EXPECT_EQ(sessions.history("cell", "ses_new").size(), 1u);
  EXPECT_FALSE(sessions.find_run("cell", "run_b"));
  EXPECT_FALSE(sessions.find_run("cell", "run_c"));
  RunRecord hers_again = a_run("run_d", "ses_new");
  hers_again.actor = "alice";
  EXPECT_NO_THROW(sessions.start_run(hers_again)) << "her own runs go on";
}

// A page of messages holds at most 8 MiB of them, whatever `limit` asks (500 messages of
// 1 MB would make a page of 500 MB built whole in memory); the cursor goes on.
TEST(SessionStoreTest, APageOfLargeMessagesEndsEarlyAndTheCursorGoesOn) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  const nlohmann::json part = {{"type", "text"}, {"text", std::string(900 * 1024, 'm')}};
  for (int i = 0; i < 20; ++i) {
    RunRecord run = a_run("run_" + std::to_string(i), "ses_big");
    RunOutcome outcome{run.id, "cell", "ses_big", "end_turn", 0, 0, "[]", {}};
    outcome.continues = i > 0;
    outcome.new_messages.push_back(test_util::message_of("user", nlohmann::json::array({part})));
    sessions.finish_run(outcome, &run);
  }
  nlohmann::json page = sessions.messages("cell", "ses_big", parse_page_request("500", {}));
  EXPECT_LT(page["data"].size(), 20u);
  EXPECT_GE(page["data"].size(), 8u);
  size_t seen = page["data"].size();
  while (!page["next_cursor"].is_null()) {
    page = sessions.messages("cell", "ses_big",
                             parse_page_request("500", page["next_cursor"].get<std::string>()));
    seen += page["data"].size();
  }
  EXPECT_EQ(seen, 20u);
}

// A run on a long session reads the history newest first only as far as a context of
// the model's window could reach (recent_history), and the context it builds is the
// one the whole history gave: for windows from 10 tokens to all of it, with and
// without a reserve, over 3,000 messages of mixed sizes, images and irregular roles.
TEST(SessionStoreTest, ALongSessionIsReadOnlyAsFarAsTheContextWindowReaches) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  RunRecord run = a_run("run_long", "ses_long");
  RunOutcome outcome{"run_long", "cell", "ses_long", "end_turn", 0, 0, "[]", {}};
  uint32_t state = 7;
  for (int i = 0; i < 3000; ++i) {
    state = state * 1103515245u + 12345u;
    std::string words((state >> 8) % 400, 'w');
    if (i % 3 == 1)
      words += "\"quoted\"\n caf\xc3\xa9 \\ \xf0\x9f\x98\x80";  // escaped or multi-byte
    nlohmann::json part = i % 50 == 49 ? nlohmann::json{{"type", "image_url"},
                                                        {"image_url",
                                                         {{"url", "https://i/" + std::to_string(i)},
                                                          {"text", "not a text part"}}}}
                                       : nlohmann::json{{"type", "text"}, {"text", words}};
    outcome.new_messages.push_back(test_util::message_of(
        i % 7 == 3 || i % 2 == 0 ? "user" : "assistant", nlohmann::json::array({part})));
  }
  sessions.finish_run(outcome, &run);
  std::vector<StoredMessage> whole = sessions.history("cell", "ses_long");
  for (StoredMessage& m : whole) estimate_stored(m);
  ASSERT_EQ(whole.size(), 3000u);
  const std::vector<StoredMessage> fresh = {
      test_util::message_of("user", nlohmann::json::array({{{"type", "text"}, {"text", "now"}}}))};
  auto text_of = [](const StoredMessage& m) { return m.role + m.content_text.str(); };
  auto texts = [&](const RunContext& context) {
    std::vector<std::string> out;
    context.each([&](const StoredMessage& m) { out.push_back(text_of(m)); });
    return out;
  };
  auto tokens = [](auto begin, auto end) {
    int64_t sum = 0;
    for (auto it = begin; it != end; ++it) sum += estimate_tokens(*it);
    return sum;
  };
  for (int64_t window : {10, 50, 333, 1000, 5000, 20000, 10'000'000}) {
    const auto recent = recent_history(sessions, "cell", "ses_long", window);
    ASSERT_LE(recent.size(), whole.size());
    EXPECT_TRUE(std::equal(
        recent.begin(), recent.end(), whole.end() - static_cast<std::ptrdiff_t>(recent.size()),
        [&](const StoredMessage& a, const StoredMessage& b) {
          return text_of(a) == text_of(b) && estimate_tokens(a) == estimate_tokens(b);
        }))
        << "not the newest messages, window " << window;
    if (recent.size() < whole.size()) {
      EXPECT_LE(tokens(recent.begin() + 1, recent.end()), window) << "read past the window";
      EXPECT_GT(tokens(recent.begin(), recent.end()), window) << "stopped short, window " << window;
    }
    for (std::optional<int64_t> reserve : {std::optional<int64_t>(), std::optional<int64_t>(7)}) {
      std::vector<std::string> from_whole, from_recent;
      try {
        from_whole = texts(assemble_context({"", {}, whole, fresh}, window, reserve));
      } catch (const DomainError&) {
        from_whole = {"refused"};
      }
      try {
        from_recent = texts(assemble_context({"", {}, recent, fresh}, window, reserve));
      } catch (const DomainError&) {
        from_recent = {"refused"};
      }
      EXPECT_EQ(from_recent, from_whole) << "window " << window;
    }
  }
  EXPECT_LT(recent_history(sessions, "cell", "ses_long", 1000).size(), 100u);
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

// An actor's sessions come from sessions_by_actor in order, with no sort of the cell's
// sessions: the one statement for both lists once read them all and sorted them.
TEST(SessionStoreTest, AnActorsSessionsAreListedFromTheIndexUnsorted) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_1", "ses_1"));
  std::string plan;
  store.read([&](Connection& db) {
    auto rows = db.prepare("EXPLAIN QUERY PLAN " + SessionStore::list_sql(true));
    while (rows.step()) plan += rows.column_text(3) + "\n";
  });
  EXPECT_NE(plan.find("sessions_by_actor (cell=? AND actor=? AND seq<?)"), std::string::npos)
      << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
  auto page = sessions.list("cell", std::string("ada"), PageRequest{});
  ASSERT_EQ(page["data"].size(), 1u);
  EXPECT_EQ(page["data"][0]["id"], "ses_1");
  EXPECT_TRUE(sessions.list("cell", std::string("bob"), PageRequest{})["data"].empty());
  EXPECT_EQ(sessions.list("cell", std::nullopt, PageRequest{})["data"].size(), 1u);
}

// Every page of a cell's session list, newest first, through the cursors.
std::vector<std::string> listed_ids(const SessionStore& sessions, const std::string& cell,
                                    int limit) {
  std::vector<std::string> ids;
  PageRequest page{limit, std::nullopt};
  for (;;) {
    nlohmann::json body = sessions.list(cell, std::nullopt, page);
    EXPECT_LE(body["data"].size(), static_cast<size_t>(limit));
    for (const auto& session : body["data"]) ids.push_back(session["id"]);
    if (body["next_cursor"].is_null()) return ids;
    page = parse_page_request(std::to_string(limit), body["next_cursor"].get<std::string>());
  }
}

// A whole cell's list walks back the newest rows of the table when the cell holds most
// of them, and falls back to the cell's index when the walk finds too few: a cell that
// dominates the table, one with a session in a hundred, and one with a single old
// session all list every session once, newest first, whatever the page size.
TEST(SessionStoreTest, AWholeCellIsListedAlikeWhereverItsSessionsLie) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  std::map<std::string, std::vector<std::string>> newest_first;
  const int total = static_cast<int>(SessionStore::kCellScanRows) * 3 / 2;
  store.write([&](Connection& db) {
    auto insert = db.prepare(
        "INSERT INTO sessions(cell, id, actor, created_at, updated_at) VALUES (?, ?, 'ada', "
        "'2026-11-27T00:00:00.000Z', '2026-11-27T00:00:00.000Z')");
    for (int i = 0; i < total; ++i) {
      const std::string cell = i == 0 ? "tiny" : i % 100 == 0 ? "small" : "big";
      const std::string id = "ses_" + std::to_string(i);
      insert.bind(1, cell).bind(2, id).run();
      insert.reset();
      newest_first[cell].insert(newest_first[cell].begin(), id);
    }
  });
  for (const char* cell : {"big", "small", "tiny"})
    for (const int limit : {1, 7, 50, 200})
      EXPECT_EQ(listed_ids(sessions, cell, limit), newest_first[cell])
          << cell << ", " << limit << " a page";
  EXPECT_TRUE(listed_ids(sessions, "none", 50).empty());
}

}  // namespace
}  // namespace agentrt::core
