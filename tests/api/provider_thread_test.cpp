// Which thread runs a provider call in agentd, with a plugin that offers ABI 1.2
// complete_async (tests/fixtures/async_provider.cpp answers "async <thread>" from its
// own thread and "sync" from the blocking complete): /run streams from the plugin's
// thread, /chat runs the call on its request's thread, and an interrupt reaches a call
// that waits on the plugin's thread at once.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <future>
#include <regex>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class ProviderThread : public ::testing::Test {
 protected:
  ProviderThread()
      : agentd(with_args({"--config", dir.write("config.json", R"({
          "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
          "plugins": {"async-fixture": {}}})")})) {
    admin = first_admin_token(agentd);  // the plugin, enabled, offers model "async"
  }
  json body(const std::string& text, json extra = json::object()) {
    json b = run_body(text, std::move(extra));
    b["model"] = "async";
    return b;
  }

  // A /run stream read to its end, and when its run_start and its end arrived.
  struct TimedRun {
    json start;
    std::vector<json> rest;
    std::chrono::steady_clock::duration to_start{}, start_to_end{};
  };
  TimedRun timed_run(const std::string& text) {
    using Clock = std::chrono::steady_clock;
    const auto asked = Clock::now();
    auto stream = open_run(agentd, admin, body(text));
    TimedRun run;
    EXPECT_EQ(stream->status(), 200) << stream->error_body();
    auto start = stream->next();
    if (!start) return run;
    const auto started = Clock::now();
    run.start = *start;
    run.rest = stream->rest();
    run.to_start = started - asked;
    run.start_to_end = Clock::now() - started;
    return run;
  }

  TempDir dir;
  AgentdProcess agentd;
  std::string admin;
};

TEST_F(ProviderThread, AStreamRunsOnThePluginsThreadAndChatOnItsOwn) {
  auto stream = open_run(agentd, admin, body("hello"));
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  auto events = stream->rest();
  EXPECT_EQ(joined_text(events).rfind("async ", 0), 0u) << joined_text(events);
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(events.back()["usage"], (json{{"input_tokens", 2}, {"output_tokens", 3}}));

  auto chat = call(agentd, "POST", "/chat", admin, body("hello"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_EQ(chat.json()["response"], "sync");
}

TEST_F(ProviderThread, AnInterruptEndsACallWaitingOnThePluginsThreadAtOnce) {
  auto stream = open_run(agentd, admin, body("wait", {{"session_id", "waiting"}}));
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  auto start = stream->next();
  ASSERT_TRUE(start);
  EXPECT_EQ((*start)["type"], "run_start");
  const auto asked = std::chrono::steady_clock::now();
  auto interrupted = call(agentd, "POST", "/sessions/waiting/interrupt", admin, json::object());
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  // The fixture checks on its own only once a second; sooner means the wake got there.
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 700ms);
}

// A plugin that declines to run a call on its own threads gets it on the stream's
// thread; the run's start is then stored just before the call, and the stream is whole.
TEST_F(ProviderThread, AStreamThePluginDeclinesRunsOnItsConnectionsThreadAndIsStored) {
  auto stream = open_run(agentd, admin, body("decline"));
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  auto events = stream->rest();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["type"], "run_start");
  EXPECT_EQ(joined_text(events), "sync");
  EXPECT_EQ(events.back()["reason"], "end_turn");
  const std::string run_id = events.front()["run_id"];
  SseClient replay(agentd.port(), "GET", "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + admin}});
  EXPECT_EQ(replay.rest(), events);
}

// An upstream that keeps answering 503 is retried with backoff (1.5 s, twice); the
// stream's head and run_start do not wait for the retries to give up.
TEST_F(ProviderThread, AStreamsStartGoesOutBeforeItsRetriesWait) {
  TimedRun run = timed_run("fail");
  EXPECT_EQ(run.start["type"], "run_start");
  ASSERT_FALSE(run.rest.empty());
  EXPECT_EQ(run.rest.back()["type"], "done");
  EXPECT_EQ(run.rest.front()["type"], "error") << run.rest.front().dump();
  EXPECT_GE(run.start_to_end, 2500ms) << "run_start came only when the retries were over";
  EXPECT_LT(run.to_start, run.start_to_end);
}

// The same when the plugin refuses each call before it starts (Provider::start throws):
// no call is ever under way, so the start is stored, and goes out, before the first
// wait instead of with the run's failure.
TEST_F(ProviderThread, AStreamsStartGoesOutBeforeItsRetriesWaitWhenNoCallStarts) {
  TimedRun run = timed_run("refuse");
  EXPECT_EQ(run.start["type"], "run_start");
  ASSERT_FALSE(run.rest.empty());
  EXPECT_EQ(run.rest.front().value("code", ""), "provider_unavailable") << run.rest.front().dump();
  EXPECT_EQ(run.rest.back()["type"], "done");
  EXPECT_GE(run.start_to_end, 2500ms) << "run_start came only when the retries were over";
  SseClient replay(agentd.port(), "GET", "/runs/" + run.start.value("run_id", "") + "/events",
                   {{"Authorization", "Bearer " + admin}});
  auto stored = replay.rest();
  ASSERT_FALSE(stored.empty());
  EXPECT_EQ(stored.front(), run.start);
  EXPECT_EQ(std::vector<json>(stored.begin() + 1, stored.end()), run.rest);
}

// A /chat whose provider refuses the request is a 400 and stores nothing; whoever
// followed the run meanwhile (its id named by session_busy) saw its run_start, and their
// stream ends as every stream does, with error and done, rather than closing after
// run_start.
TEST_F(ProviderThread, AFollowerOfARunRefusedUnstoredGetsErrorAndDone) {
  auto chat = std::async(std::launch::async, [&] {
    return call(agentd, "POST", "/chat", admin, body("refuse-after 1500", {{"session_id", "s"}}));
  });
  // The new session is its live run's until the run ends: seen, it is busy.
  for (int i = 0; i < 100 && call(agentd, "GET", "/sessions/s/messages", admin).status != 200; ++i)
    std::this_thread::sleep_for(10ms);
  auto busy = call(agentd, "POST", "/chat", admin, body("x", {{"session_id", "s"}}));
  ASSERT_EQ(busy.status, 409) << busy.body;
  std::smatch id;
  const std::string busy_message = busy.json()["error"]["message"];
  ASSERT_TRUE(std::regex_search(busy_message, id, std::regex("run_[0-9a-f]+"))) << busy_message;
  const std::string run_id = id.str();
  SseClient follower(agentd.port(), "GET", "/runs/" + run_id + "/events",
                     {{"Authorization", "Bearer " + admin}});
  ASSERT_EQ(follower.status(), 200) << follower.error_body();
  const std::vector<json> events = follower.rest();

  auto refused = chat.get();
  EXPECT_EQ(refused.status, 400) << refused.body;
  const std::string message = refused.json()["error"]["message"];
  EXPECT_NE(message.find("cannot send this"), std::string::npos) << message;
  ASSERT_EQ(events.size(), 3u) << json(events).dump();
  EXPECT_EQ(events[0]["type"], "run_start");
  EXPECT_EQ(events[1]["type"], "error");
  EXPECT_EQ(events[1]["code"], "invalid_request");
  EXPECT_EQ(events[1]["message"], message);
  EXPECT_EQ(events[2]["type"], "done");
  EXPECT_EQ(events[2]["reason"], "error");
  EXPECT_EQ(events[2]["usage"], (json{{"input_tokens", 0}, {"output_tokens", 0}}));
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i]["seq"], i + 1) << i;
  EXPECT_EQ(call(agentd, "GET", "/runs/" + run_id + "/events", admin).status, 404)
      << "nothing of a refused run is stored";
}

}  // namespace
}  // namespace agentrt::test
