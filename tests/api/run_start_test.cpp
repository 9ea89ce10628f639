// A stream's start (its run row, and its session when new) is stored while its provider
// call is already under way, so the upstream's first answer does not wait for that
// commit. Nothing of the stream, not even its head, goes out before the start is
// stored: whoever learns the run's id can look it up, and a start that cannot be
// stored still gets a plain JSON error. The store is held or refused from a connection
// of the test's own, as another process (the sqlite3 shell, `agentd admin-token`)
// could.
#include "tests/api/store_connection.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class RunStart : public ::testing::Test {
 protected:
  RunStart() : store(setup.agentd.data_dir() + "/state.db") {}

  // A stream whose end the store refuses (as a full disk would: here a trigger), read
  // to its end.
  std::vector<json> run_with_its_end_refused() {
    setup.fake.set_default(Reply::answer("Hello there, friend", 3));
    store.exec(
        "CREATE TRIGGER refuse_end BEFORE UPDATE ON runs WHEN NEW.status = 'done' "
        "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    auto stream = open_run(setup.agentd, setup.admin, setup.body("hello"));
    EXPECT_EQ(stream->status(), 200) << stream->error_body();
    return stream->rest();
  }

  VendorSetup setup{Vendor::openai};
  StoreConnection store;
};

TEST_F(RunStart, TheUpstreamIsCalledWhileTheStartWaitsToBeStoredAndNothingGoesOutBefore) {
  setup.fake.set_default(Reply::answer("Hello there, friend", 3));
  store.exec("BEGIN IMMEDIATE");  // agentd's writer now waits for this connection
  auto opening = std::async(
      std::launch::async, [&] { return open_run(setup.agentd, setup.admin, setup.body("hello")); });
  const bool called = setup.fake.wait_for_requests(1, 3s);
  const bool nothing_yet = opening.wait_for(300ms) == std::future_status::timeout;
  store.exec("ROLLBACK");
  EXPECT_TRUE(called) << "the upstream was called only once the start was stored";
  EXPECT_TRUE(nothing_yet) << "the response head went out before the start was stored";

  auto stream = opening.get();
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  const std::vector<json> events = stream->rest();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["type"], "run_start");
  EXPECT_EQ(events.back()["type"], "done");
  EXPECT_EQ(joined_text(events), "Hello there, friend");
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i]["seq"], i + 1) << i;

  const std::string run_id = events.front()["run_id"];
  SseClient replay(setup.agentd.port(), "GET", "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + setup.admin}});
  ASSERT_EQ(replay.status(), 200) << replay.error_body();
  EXPECT_EQ(replay.rest(), events);
  EXPECT_EQ(store.count("SELECT count(*) FROM runs WHERE status = 'done'"), 1);
}

TEST_F(RunStart, AStartThatCannotBeStoredAnswersAJsonErrorStopsTheCallAndLeavesNothing) {
  setup.fake.set_default(Reply::hang_after_headers(1));
  // The refusal is committed only once the upstream has the call, so that there is a
  // call under way to stop.
  store.exec("BEGIN IMMEDIATE");
  store.exec(
      "CREATE TRIGGER refuse_start BEFORE INSERT ON runs WHEN NEW.status = 'running' "
      "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
  auto opening = std::async(std::launch::async, [&] {
    return open_run(setup.agentd, setup.admin, setup.body("hello", {{"session_id", "s1"}}));
  });
  const bool called = setup.fake.wait_for_requests(1, 3s);
  store.exec("COMMIT");
  ASSERT_TRUE(called);
  auto refused = opening.get();
  EXPECT_EQ(refused->status(), 500);
  const json error = json::parse(refused->error_body());
  EXPECT_EQ(error["error"]["code"], "internal") << error.dump();
  EXPECT_TRUE(setup.fake.wait_for_client_abort(5s)) << "the upstream call went on";

  store.exec("DROP TRIGGER refuse_start");
  EXPECT_EQ(store.count("SELECT count(*) FROM runs"), 0);
  EXPECT_EQ(store.count("SELECT count(*) FROM sessions"), 0);
  setup.fake.set_default(Reply::answer("again", 1));
  auto again = open_run(setup.agentd, setup.admin, setup.body("hello", {{"session_id", "s1"}}));
  ASSERT_EQ(again->status(), 200) << "the session is free again: " << again->error_body();
  const std::vector<json> events = again->rest();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(store.count("SELECT count(*) FROM runs"), 1);
}

// A stream whose end cannot be stored still ends as every stream does, an error and then
// done, not with neither, the connection just closing.
TEST_F(RunStart, AnEndThatCannotBeStoredStillEndsTheStreamWithAnErrorAndDone) {
  const std::vector<json> events = run_with_its_end_refused();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["type"], "run_start");
  const json& error = events[events.size() - 2];
  EXPECT_EQ(error["type"], "error");
  EXPECT_EQ(error["code"], "internal");
  EXPECT_EQ(events.back()["type"], "done");
  EXPECT_EQ(events.back()["reason"], "error");
  EXPECT_EQ(events.back()["seq"], events.size());
}

// That end is not lost either: its followers get what its client got, not a 404, and once
// the store takes writes again the next run stores it, so the row does not say running
// until a restart.
TEST_F(RunStart, AnEndThatCouldNotBeStoredIsFollowedAndStoredOnceTheStoreTakesWrites) {
  const std::vector<json> sent = run_with_its_end_refused();
  ASSERT_FALSE(sent.empty());
  ASSERT_EQ(sent.back()["type"], "done");
  const std::string run_id = sent.front()["run_id"];
  auto follow = [&](int64_t after) {
    SseClient replay(setup.agentd.port(), "GET",
                     "/runs/" + run_id + "/events?after=" + std::to_string(after),
                     {{"Authorization", "Bearer " + setup.admin}});
    EXPECT_EQ(replay.status(), 200) << replay.error_body();
    return replay.rest();
  };
  EXPECT_EQ(follow(0), sent) << "from memory, while the store still refuses";
  EXPECT_EQ(follow(1).size(), sent.size() - 1);
  EXPECT_EQ(store.count("SELECT count(*) FROM runs WHERE status = 'running'"), 1);

  store.exec("DROP TRIGGER refuse_end");
  auto next = open_run(setup.agentd, setup.admin, setup.body("again"));
  ASSERT_EQ(next->status(), 200) << next->error_body();
  ASSERT_EQ(next->rest().back()["reason"], "end_turn");
  EXPECT_EQ(store.count("SELECT count(*) FROM runs WHERE status = 'running'"), 0);
  EXPECT_EQ(store.count("SELECT count(*) FROM runs WHERE id = '" + run_id +
                        "' AND status = 'done' AND reason = 'error' AND ended_at IS NOT NULL"),
            1);
  EXPECT_EQ(follow(0), sent) << "from the store now";
}

// An interrupt that comes once the answer is whole, while the run is being stored, stops
// nothing: the run ends end_turn, and the interrupt says it interrupted nothing rather
// than answering true.
TEST_F(RunStart, AnInterruptAfterTheAnswerWasWholeSaysItInterruptedNothing) {
  setup.fake.set_default(Reply::answer("Hello there, friend", 3));
  store.exec("BEGIN IMMEDIATE");  // the run's start, and so its end, wait for this
  auto opening = std::async(std::launch::async, [&] {
    return open_run(setup.agentd, setup.admin, setup.body("hello", {{"session_id", "s1"}}));
  });
  ASSERT_TRUE(setup.fake.wait_for_requests(1, 3s));
  std::this_thread::sleep_for(300ms);  // the fake's whole answer is in
  auto interrupting = std::async(std::launch::async, [&] {
    return call(setup.agentd, "POST", "/sessions/s1/interrupt", setup.admin, json::object());
  });
  std::this_thread::sleep_for(300ms);
  store.exec("ROLLBACK");

  const HttpResponse interrupted = interrupting.get();
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  auto stream = opening.get();
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  const std::vector<json> events = stream->rest();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(joined_text(events), "Hello there, friend");
  EXPECT_EQ(interrupted.json()["interrupted"], false) << interrupted.body;
  EXPECT_EQ(interrupted.json()["run_id"], events.front()["run_id"]);
}

}  // namespace
}  // namespace agentrt::test
