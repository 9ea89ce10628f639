// A session deleted while its run goes on keeps nothing of that run, even when the
// provider ignores the cancel past the deletion's wait: the run must neither write the
// session back nor leave its messages for whoever takes the id next. The provider is
// the async fixture's "linger N" (tests/fixtures/async_provider.cpp).
#include "core/domain/errors.h"
#include "tests/core/run_service_fixture.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace agentrt::core {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class RunDiscard : public RunServiceFixture {
 protected:
  void SetUp() override {
    RunSettings settings;
    settings.stop_wait = 50ms;
    ASSERT_NO_FATAL_FAILURE(start(std::string(AGENTRT_TEST_FIXTURE_DIR) + "/async-fixture.so",
                                  "async-fixture", settings));
  }
  static json body(const std::string& text, const std::string& session) {
    return {{"model", "async"},
            {"session_id", session},
            {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}}}}};
  }
  // Until the session's run is live: an interrupt names it (a lingering run ignores it,
  // and is not interrupted). Before that, a new session is not found.
  void await_live(const std::string& session) {
    for (int i = 0; i < 400; ++i) {
      try {
        if (!runs->interrupt("cell", alice, session)["run_id"].is_null()) return;
      } catch (const DomainError&) {
      }
      std::this_thread::sleep_for(5ms);
    }
    FAIL() << "no live run on " << session;
  }
  std::vector<std::string> stored_texts(const std::string& session) {
    std::vector<std::string> texts;
    for (const StoredMessage& m : sessions.history("cell", session))
      texts.push_back(json::parse(m.content_text.str()).at(0).value("text", ""));
    return texts;
  }
  // Once the deleted session's run has ended: nothing of it is stored, and bob, who
  // takes the id next, finds only his own turn in it.
  void expect_nothing_left_for_bob(const std::string& session) {
    EXPECT_FALSE(sessions.find("cell", session)) << "written back by the late run";
    EXPECT_TRUE(stored_texts(session).empty());
    const json answer = json::parse(runs->chat("cell", bob, body("mine", session).dump()));
    EXPECT_EQ(answer["response"], "sync");
    EXPECT_EQ(sessions.find("cell", session)->actor, "bob");
    EXPECT_EQ(stored_texts(session), (std::vector<std::string>{"mine", "sync"}));
  }

  Principal alice{"tok_a", "alice", std::nullopt, false, std::nullopt};
  Principal bob{"tok_b", "bob", std::nullopt, false, std::nullopt};
};

// /chat writes its run, and its session when new, only at its end (StartWrite::with_end).
TEST_F(RunDiscard, AChatThatOutlivesItsSessionsDeletionStoresNothing) {
  runs->chat("cell", alice, body("first", "s").dump());
  ASSERT_EQ(stored_texts("s"), (std::vector<std::string>{"first", "sync"}));
  auto late = std::async(std::launch::async, [&] {
    try {
      runs->chat("cell", alice, body("linger 1000", "s").dump());
    } catch (const std::exception&) {
    }
  });
  await_live("s");
  runs->delete_session("cell", alice, "s");
  ASSERT_EQ(late.wait_for(0ms), std::future_status::timeout) << "the run stopped in time";
  late.get();
  expect_nothing_left_for_bob("s");
}

// A stream stores its start while the provider works (StartWrite::with_call), before
// the deletion; its end, after it, must not add messages to the session gone.
TEST_F(RunDiscard, AStreamThatOutlivesItsSessionsDeletionAddsNoMessages) {
  auto late = std::async(std::launch::async, [&] {
    PreparedRun run = runs->prepare("cell", alice, body("linger 1000", "t").dump());
    RecordingSink sink;
    return runs->execute(run, sink);
  });
  await_live("t");
  runs->delete_session("cell", alice, "t");
  ASSERT_EQ(late.wait_for(0ms), std::future_status::timeout) << "the run stopped in time";
  EXPECT_EQ(late.get().reason, "interrupted");
  expect_nothing_left_for_bob("t");
}

// A cell's deletion discards its live runs inside its transaction (as Engine wires it).
TEST_F(RunDiscard, ARunOfADeletedCellStoresNothingInIt) {
  auto late = std::async(std::launch::async, [&] {
    try {
      runs->chat("cell", alice, body("linger 1000", "u").dump());
    } catch (const std::exception&) {
    }
  });
  await_live("u");
  store.write([&](Connection& db) {
    SessionStore::remove_cell(db, "cell");
    runs->discard_cell("cell");
  });
  late.get();
  expect_nothing_left_for_bob("u");
}

// Until a session's deletion is done, its memory included (the hook Engine wires, run
// here while the deletion holds the session), no run starts on it: one that did would
// read the history being deleted and write the session back with its turn. A run is
// refused as busy then; with "if_busy":"interrupt" it waits for the deletion and starts
// on the session anew.
// An interrupt answers once the run stopped; one whose provider ignores it past the
// wait is named, and said not to be interrupted (it used to be said to be).
TEST_F(RunDiscard, AnInterruptThatARunIgnoresSaysSo) {
  auto late = std::async(std::launch::async,
                         [&] { return runs->chat("cell", alice, body("linger 400", "s").dump()); });
  await_live("s");
  const json answer = runs->interrupt("cell", alice, "s");
  EXPECT_EQ(answer["interrupted"], false) << answer;
  EXPECT_TRUE(answer["run_id"].is_string()) << answer;
  late.get();
  EXPECT_EQ(runs->interrupt("cell", alice, "s"),
            json({{"interrupted", false}, {"run_id", nullptr}}));
}

TEST_F(RunDiscard, NoRunStartsOnASessionWhileItIsBeingDeleted) {
  runs->chat("cell", alice, body("first", "s").dump());
  std::string refused;
  std::future<std::string> waiting;
  runs->on_session_deleted([&](const std::string&, const std::string&) {
    try {
      runs->chat("cell", alice, body("meanwhile", "s").dump());
    } catch (const DomainError& e) {
      EXPECT_EQ(e.code(), "session_busy");
      refused = e.what();
    }
    json patient = body("after", "s");
    patient["if_busy"] = "interrupt";
    waiting = std::async(std::launch::async,
                         [&, patient] { return runs->chat("cell", alice, patient.dump()); });
    EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout)
        << "started during the deletion";
    // The hook runs before the session's rows go (its memory first, so that a failure
    // leaves the session whole): a hold is there to see, and it is no run.
    EXPECT_EQ(runs->interrupt("cell", alice, "s")["interrupted"], false) << "a hold is no run";
  });
  runs->delete_session("cell", alice, "s");
  EXPECT_NE(refused.find("is being deleted"), std::string::npos) << refused;
  ASSERT_TRUE(waiting.valid());
  EXPECT_EQ(json::parse(waiting.get())["response"], "sync");
  EXPECT_EQ(stored_texts("s"), (std::vector<std::string>{"after", "sync"}));
}

}  // namespace
}  // namespace agentrt::core
