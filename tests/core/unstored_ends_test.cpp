// The ends of streams that could not be stored: kept and served as their clients got
// them, stored onto rows still running once the store takes writes, kept through a
// write that fails again, and bounded.
#include "core/sessions/unstored_ends.h"
#include "core/sessions/session_store.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::core {
namespace {

RunRecord a_run(const std::string& id) {
  return {id, "cell", "ses_" + id, "ada", "m", "running", "", "2026-11-28T00:00:00Z", "", 0, 0};
}

UnstoredEnds::End an_end(const std::string& id) {
  return {id,
          "error",
          R"([{"type":"run_start","seq":1},{"type":"done","seq":2}])",
          "2026-11-28T00:00:01Z",
          7,
          3};
}

std::string status_of(StateStore& store, const std::string& id) {
  std::string status;
  store.read([&](Connection& db) {
    auto row = db.prepare(
        "SELECT status || '/' || coalesce(reason, '') || '/' || "
        "coalesce(output_tokens, 0) FROM runs WHERE id = ?");
    if (row.bind(1, id).step()) status = row.column_text(0);
  });
  return status;
}

TEST(UnstoredEnds, AreServedThenStoredOntoRowsStillRunning) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_a"));
  sessions.start_run(a_run("run_b"));
  store.write(
      [](Connection& db) { db.exec("UPDATE runs SET status = 'done' WHERE id = 'run_b'"); });

  UnstoredEnds ends;
  EXPECT_TRUE(ends.empty());
  EXPECT_FALSE(ends.events_json("run_a"));
  ends.keep(an_end("run_a"));
  ends.keep(an_end("run_b"));
  EXPECT_FALSE(ends.empty());
  EXPECT_EQ(ends.events_json("run_a"), an_end("run_a").events_json);

  EXPECT_TRUE(ends.store(store));
  EXPECT_TRUE(ends.empty());
  EXPECT_FALSE(ends.events_json("run_a"));
  EXPECT_EQ(status_of(store, "run_a"), "done/error/3");
  EXPECT_EQ(status_of(store, "run_b"), "done//0") << "a row that ended since is left alone";
}

TEST(UnstoredEnds, AWriteThatFailsAgainKeepsThem) {
  test_util::TempDir tmp;
  StateStore store(tmp.path());
  SessionStore sessions(store);
  sessions.start_run(a_run("run_a"));
  store.write([](Connection& db) {
    db.exec("CREATE TRIGGER refuse BEFORE UPDATE ON runs BEGIN SELECT RAISE(ABORT, 'no'); END");
  });
  UnstoredEnds ends;
  ends.keep(an_end("run_a"));
  EXPECT_FALSE(ends.store(store));
  EXPECT_EQ(ends.events_json("run_a"), an_end("run_a").events_json);
  EXPECT_EQ(status_of(store, "run_a"), "running//0");

  store.write([](Connection& db) { db.exec("DROP TRIGGER refuse"); });
  EXPECT_TRUE(ends.store(store));
  EXPECT_EQ(status_of(store, "run_a"), "done/error/3");
}

TEST(UnstoredEnds, PastTheBoundTheOldestIsLetGo) {
  UnstoredEnds ends;
  for (size_t i = 0; i <= UnstoredEnds::kMost; ++i) ends.keep(an_end("run_" + std::to_string(i)));
  EXPECT_FALSE(ends.events_json("run_0"));
  EXPECT_TRUE(ends.events_json("run_1"));
  EXPECT_TRUE(ends.events_json("run_" + std::to_string(UnstoredEnds::kMost)));
}

}  // namespace
}  // namespace agentrt::core
