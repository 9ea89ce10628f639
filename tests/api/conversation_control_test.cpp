// Controlling running runs: interrupt, a busy session, a client that leaves, following a
// live run, keep-alive pings, and shutdown in the middle of a stream.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <future>
#include <regex>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

const std::string kLong = "one two three four five six seven eight";

json wait_for_done(const AgentdProcess& agentd, const std::string& token,
                   const std::string& run_id) {
  for (int i = 0; i < 100; ++i) {
    SseClient replay(agentd.port(), "GET", "/runs/" + run_id + "/events",
                     {{"Authorization", "Bearer " + token}});
    auto events = replay.rest();
    if (!events.empty() && events.back()["type"] == "done") return events.back();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

TEST(ConversationControl, InterruptEndsTheStreamAndKeepsThePartialAnswer) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(150, dir));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong, {{"session_id", "s"}}));
  ASSERT_EQ(stream->next()->at("type"), "run_start");
  ASSERT_EQ(stream->next()->at("type"), "stream_delta");
  auto interrupted = call(agentd, "POST", "/sessions/s/interrupt", admin);
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  EXPECT_EQ(interrupted.json()["interrupted"], true);
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["type"], "done");
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  EXPECT_TRUE(rest.back()["usage"].is_object());
  EXPECT_EQ(rest.back()["run_id"], interrupted.json()["run_id"]);
  auto messages = call(agentd, "GET", "/sessions/s/messages", admin).json()["data"];
  ASSERT_EQ(messages.size(), 2u);
  std::string partial = messages[1]["content"][0]["text"];
  EXPECT_FALSE(partial.empty());
  EXPECT_LT(partial.size(), kLong.size());
  EXPECT_EQ(kLong.rfind(partial, 0), 0u) << "the partial answer is a prefix of the whole";
  auto again = call(agentd, "POST", "/sessions/s/interrupt", admin).json();
  EXPECT_EQ(again["interrupted"], false);
  EXPECT_TRUE(again["run_id"].is_null());
}

// A /chat run on a new session stores the session only when it ends; while it runs,
// the session is its owner's to interrupt and nobody else's to see.
// ada's slow /chat on a new session `session`, under way; bob, another actor.
struct AdaChatting {
  explicit AdaChatting(const std::string& session) {
    chat = std::async(std::launch::async, [this, session] {
      return call(agentd, "POST", "/chat", ada, run_body(kLong, {{"session_id", session}}));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  TempDir dir;
  AgentdProcess agentd{slow_echo(150, dir)};
  std::string admin = first_admin_token(agentd);
  std::string ada = issue_token(agentd, admin, {{"actor", "ada"}, {"ttl", "1h"}})["token"];
  std::string bob = issue_token(agentd, admin, {{"actor", "bob"}, {"ttl", "1h"}})["token"];
  std::future<HttpResponse> chat;
};

TEST(ConversationControl, AChatOnANewSessionCanBeInterruptedWhileItRuns) {
  AdaChatting s("fresh");
  const AgentdProcess& agentd = s.agentd;
  const std::string &ada = s.ada, &bob = s.bob;
  EXPECT_EQ(call(agentd, "POST", "/sessions/fresh/interrupt", bob).status, 404);
  // Nor is it his to run on: no 409 naming ada's run, and no stop of it by "if_busy"
  // (ada's interrupt below finds her run still going).
  for (const json& if_busy : {json(), json("interrupt")}) {
    json body = run_body("mine now", {{"session_id", "fresh"}});
    if (!if_busy.is_null()) body["if_busy"] = if_busy;
    auto taken = call(agentd, "POST", "/chat", bob, body);
    EXPECT_EQ(taken.status, 404) << taken.body;
    EXPECT_EQ(taken.body.find("run_"), std::string::npos) << taken.body;
  }
  auto interrupted = call(agentd, "POST", "/sessions/fresh/interrupt", ada);
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  EXPECT_EQ(interrupted.json()["interrupted"], true);
  auto answer = s.chat.get();
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json()["reason"], "interrupted");
  EXPECT_EQ(answer.json()["run_id"], interrupted.json()["run_id"]);
  auto messages = call(agentd, "GET", "/sessions/fresh/messages", ada);
  ASSERT_EQ(messages.status, 200) << messages.body;
  EXPECT_EQ(messages.json()["data"].size(), 2u);
  auto events =
      call(agentd, "GET", "/runs/" + answer.json()["run_id"].get<std::string>() + "/events", ada);
  EXPECT_EQ(events.status, 200);
  EXPECT_NE(events.body.find("\"reason\":\"interrupted\""), std::string::npos) << events.body;
}

// A /chat run is stored at its end, but its id is known before it (session_busy tells its
// owner): it can be followed live like any run, by its owner only.
TEST(ConversationControl, ALiveChatRunCanBeFollowedByItsOwner) {
  AdaChatting s("watched");
  const AgentdProcess& agentd = s.agentd;
  const std::string &ada = s.ada, &bob = s.bob;
  auto busy = call(agentd, "POST", "/chat", ada, run_body("x", {{"session_id", "watched"}}));
  ASSERT_EQ(busy.status, 409) << busy.body;
  std::smatch id;
  const std::string message = busy.json()["error"]["message"];
  ASSERT_TRUE(std::regex_search(message, id, std::regex("run_[0-9a-f]+"))) << message;
  EXPECT_EQ(call(agentd, "GET", "/runs/" + id.str() + "/events", bob).status, 404);
  SseClient follower(agentd.port(), "GET", "/runs/" + id.str() + "/events",
                     {{"Authorization", "Bearer " + ada}});
  ASSERT_EQ(follower.status(), 200);
  auto events = follower.rest();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front()["type"], "run_start");
  EXPECT_EQ(events.back()["type"], "done");
  auto answer = s.chat.get().json();
  EXPECT_EQ(answer["run_id"], id.str());
  std::string text;
  for (const json& event : events)
    if (event["type"] == "stream_delta") text += event["content"].get<std::string>();
  EXPECT_EQ(text, answer["response"]);
}

// agentd whose echo streams a fragment every 150 ms, and its admin token.
struct SlowEcho {
  TempDir dir;
  AgentdProcess agentd{slow_echo(150, dir)};
  std::string admin = first_admin_token(agentd);
};

// A long run on `session`, under way (its run_start read), keeping the session busy;
// null when it did not start.
std::unique_ptr<SseClient> busy_run(const SlowEcho& s, const std::string& session) {
  auto run = open_run(s.agentd, s.admin, run_body(kLong, {{"session_id", session}}));
  return run->next() ? std::move(run) : nullptr;
}

TEST(ConversationControl, BusySessionIsAConflictUnlessAskedToInterrupt) {
  SlowEcho s;
  auto first = busy_run(s, "busy");
  ASSERT_TRUE(first);
  auto refused = call(s.agentd, "POST", "/chat", s.admin, run_body("x", {{"session_id", "busy"}}));
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.json()["error"]["code"], "session_busy");
  auto second = call(s.agentd, "POST", "/chat", s.admin,
                     run_body("quick", {{"session_id", "busy"}, {"if_busy", "interrupt"}}));
  EXPECT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(first->rest().back()["reason"], "interrupted");
}

// The run that interrupts sees the turn it interrupted, as stored: the question being
// corrected and the partial answer. Its context was once assembled before the
// interrupted run had stored them, so the model saw neither.
TEST(ConversationControl, AnInterruptingRunSeesTheTurnItInterrupted) {
  SlowEcho s;
  auto first = busy_run(s, "fix");
  ASSERT_TRUE(first);
  auto second = call(s.agentd, "POST", "/chat", s.admin,
                     run_body("quick", {{"session_id", "fix"}, {"if_busy", "interrupt"}}));
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(first->rest().back()["reason"], "interrupted");
  // The echo provider counts every message it is sent, 4 bytes a token: "quick" alone
  // is 2; with the interrupted question (39 bytes) and what it answered so far, 11 or
  // more.
  EXPECT_GE(second.json()["usage"]["input_tokens"].get<int64_t>(), 11) << second.body;
}

// Two requests interrupting at once both get their turn: the later stops the earlier
// (which ends interrupted, 200), neither is told the session is busy.
TEST(ConversationControl, TwoRequestsInterruptingAtOnceAreBothServed) {
  SlowEcho s;
  for (int round = 0; round < 3; ++round) {
    const std::string session = "race" + std::to_string(round);
    auto first = busy_run(s, session);
    ASSERT_TRUE(first);
    const json body = run_body(kLong, {{"session_id", session}, {"if_busy", "interrupt"}});
    auto a = std::async(std::launch::async,
                        [&] { return call(s.agentd, "POST", "/chat", s.admin, body); });
    auto b = std::async(std::launch::async,
                        [&] { return call(s.agentd, "POST", "/chat", s.admin, body); });
    const HttpResponse ra = a.get(), rb = b.get();
    EXPECT_EQ(ra.status, 200) << ra.body;
    EXPECT_EQ(rb.status, 200) << rb.body;
    EXPECT_EQ(first->rest().back()["reason"], "interrupted");
  }
}

TEST(ConversationControl, AClientThatLeavesStopsItsRun) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(200, dir));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong, {{"session_id", "gone"}}));
  std::string run_id = stream->next()->at("run_id");
  auto started = std::chrono::steady_clock::now();
  stream->close();
  json done = wait_for_done(agentd, admin, run_id);
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done["reason"], "interrupted");
  // The whole answer would take 8 x 200 ms; the run must stop long before.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1200));
}

// A /chat client that gives up (a timeout, a closed app) stops its run as a stream's
// does: the session is free for the retry it is likely to send, and what was answered
// so far is stored. It once ran on to its end, and the retry was told the session was
// busy.
TEST(ConversationControl, AChatClientThatLeavesStopsItsRun) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(200, dir));
  std::string admin = first_admin_token(agentd);
  {
    HttpConnection client(agentd.port());
    const std::string body = run_body(kLong, {{"session_id", "left"}}).dump();
    client.send_raw("POST /chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin +
                    "\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }  // the client leaves before the second of the answer's 8 words
  const auto left = std::chrono::steady_clock::now();
  HttpResponse retry;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    retry = call(agentd, "POST", "/chat", admin, run_body("again", {{"session_id", "left"}}));
  } while (retry.status == 409 &&
           std::chrono::steady_clock::now() - left < std::chrono::seconds(3));
  ASSERT_EQ(retry.status, 200) << retry.body;
  // The whole answer would take 8 x 200 ms; the run must stop long before.
  EXPECT_LT(std::chrono::steady_clock::now() - left, std::chrono::milliseconds(900));
  auto messages = call(agentd, "GET", "/sessions/left/messages", admin).json()["data"];
  ASSERT_EQ(messages.size(), 4u) << messages;
  const std::string partial = messages[1]["content"][0]["text"];
  EXPECT_LT(partial.size(), kLong.size()) << partial;
  EXPECT_EQ(kLong.rfind(partial, 0), 0u) << "the partial answer is a prefix of the whole";
}

TEST(ConversationControl, FollowingALiveRunSeesEveryEvent) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(80, dir));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong));
  std::string run_id = stream->next()->at("run_id");
  SseClient follower(agentd.port(), "GET", "/runs/" + run_id + "/events",
                     {{"Authorization", "Bearer " + admin}});
  auto followed = follower.rest();
  auto direct = stream->rest();
  ASSERT_FALSE(followed.empty());
  EXPECT_EQ(followed.front()["type"], "run_start");
  EXPECT_EQ(followed.back()["type"], "done");
  EXPECT_EQ(joined_text(followed), kLong);
  EXPECT_EQ(followed.back(), direct.back());
}

// Revoking a token ends the streams open on it at once, as it does its next request:
// a follower's stream is cut (the run it follows goes on), and a /run stream's run is
// interrupted, its client told by `done`. Both once ran on to the run's end.
TEST(ConversationControl, RevokingATokenEndsTheStreamsOpenOnIt) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(300, dir));
  std::string admin = first_admin_token(agentd);
  json ada = issue_token(agentd, admin, {{"actor", "ada"}, {"ttl", "1h"}});
  json watcher = issue_token(agentd, admin, {{"actor", "w"}, {"ttl", "1h"}, {"admin", true}});
  auto run = open_run(agentd, ada["token"], run_body(kLong));
  auto start = run->next();
  ASSERT_TRUE(start && (*start)["type"] == "run_start");
  SseClient follower(agentd.port(), "GET",
                     "/runs/" + (*start)["run_id"].get<std::string>() + "/events",
                     {{"Authorization", "Bearer " + watcher["token"].get<std::string>()}});
  ASSERT_TRUE(follower.next());
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(
      call(agentd, "DELETE", "/admin/tokens/" + watcher["id"].get<std::string>(), admin).status,
      204);
  auto followed = follower.rest();
  EXPECT_TRUE(followed.empty() || followed.back()["type"] != "done") << "cut, not finished";
  ASSERT_EQ(call(agentd, "DELETE", "/admin/tokens/" + ada["id"].get<std::string>(), admin).status,
            204);
  auto rest = run->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["type"], "done");
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  // The whole answer would take 8 x 300 ms.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1500));
}

TEST(ConversationControl, SilentStreamsGetPings) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(700, dir, {{"limits", {{"sse_ping_ms", 200}}}}));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body("a b"));
  auto events = stream->rest();
  EXPECT_EQ(events.back()["type"], "done");
  EXPECT_GE(stream->comments(), 2);
}

TEST(ConversationControl, ShutdownEndsRunningStreamsAsInterrupted) {
  TempDir dir;
  json server = {{"server", {{"shutdown_grace_s", 1}}}};
  AgentdProcess agentd(slow_echo(1000, dir, server));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong + " " + kLong));
  ASSERT_TRUE(stream->next());
  ::kill(agentd.pid(), SIGTERM);
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["type"], "done");
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  EXPECT_EQ(agentd.stop(0), 0) << "signal 0: only wait for the exit the SIGTERM above began";
}

// A second SIGTERM (a supervisor's, or Ctrl-C pressed twice) during the grace period is
// not waited out like the first: it ends the grace at once, and the streams still end
// properly.
TEST(ConversationControl, ASecondSignalEndsTheGracePeriod) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(1000, dir, {{"server", {{"shutdown_grace_s", 60}}}}));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong + " " + kLong));
  ASSERT_TRUE(stream->next());
  const auto began = std::chrono::steady_clock::now();
  ::kill(agentd.pid(), SIGTERM);
  ASSERT_TRUE(agentd.wait_for_log(
      [](const json& line) { return line.value("msg", "") == "shutting down"; }));
  ::kill(agentd.pid(), SIGTERM);
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  EXPECT_EQ(agentd.stop(0), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
}

// SIGHUP, what operators send to reload and what a closed terminal sends, kills a process
// by default, and with agentd every stream it holds, their turns lost. It is logged and
// changes nothing: the run goes on to its end and is stored.
TEST(ConversationControl, SighupIsLoggedAndStopsNothing) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(100, dir));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong, {{"session_id", "hup"}}));
  ASSERT_TRUE(stream->next());
  ASSERT_EQ(::kill(agentd.pid(), SIGHUP), 0);
  EXPECT_TRUE(agentd.wait_for_log([](const json& line) {
    return line.value("msg", "") == "SIGHUP ignored" && line.value("level", "") == "warn";
  }));
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "end_turn");
  EXPECT_EQ(call(agentd, "GET", "/sessions/hup/messages", admin).json()["data"].size(), 2u);
  EXPECT_EQ(agentd.request("GET", "/health").status, 200);
  EXPECT_EQ(agentd.stop(SIGTERM), 0);
}

// Once a shutdown has begun, a request on a connection opened before it is refused (503
// shutting_down, and the connection closes) while the run under way finishes: the
// grace period is for the work already started. Such a request once started a run of
// its own, which the end of the grace period would have cut.
TEST(ConversationControl, ShutdownRefusesNewRequestsOnOpenConnections) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(150, dir, {{"server", {{"shutdown_grace_s", 10}}}}));
  std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body(kLong));
  ASSERT_TRUE(stream->next());
  HttpConnection kept(agentd.port());
  ASSERT_EQ(kept.request("GET", "/health").status, 200);
  ::kill(agentd.pid(), SIGTERM);
  ASSERT_TRUE(agentd.wait_for_log(
      [](const json& line) { return line.value("msg", "") == "shutting down"; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the line comes just before
  auto refused =
      kept.request("POST", "/chat", run_body("x").dump(),
                   {{"Authorization", "Bearer " + admin}, {"Content-Type", "application/json"}});
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "shutting_down");
  EXPECT_EQ(refused.header("Retry-After"), "1");
  EXPECT_TRUE(refused.closes_connection());
  EXPECT_TRUE(kept.closed_by_server());
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "end_turn");
  EXPECT_EQ(joined_text(rest), kLong) << "the run under way answers in full";
  EXPECT_EQ(agentd.stop(0), 0) << "signal 0: only wait for the exit the SIGTERM above began";
}

// agentd killed mid-run leaves the run's row "running", and its replay without an end.
// The next agentd on the data dir ends such runs as interrupted, with a run_start and a
// done event, and says how many it ended.
TEST(ConversationControl, RunsAKilledAgentdLeftRunningEndInterruptedAtTheNextStart) {
  TempDir dir;
  AgentdOptions options = slow_echo(200, dir, json::object(), {"--data-dir", dir.path() + "/data"});
  options.private_data_dir = false;
  std::string admin, run_id;
  {
    AgentdProcess agentd(options);
    admin = first_admin_token(agentd);
    auto stream = open_run(agentd, admin, run_body(kLong, {{"session_id", "cut"}}));
    auto start = stream->next();
    ASSERT_TRUE(start && (*start)["type"] == "run_start");
    run_id = (*start)["run_id"];
    auto delta = stream->next();  // by the first delta the run's start is stored
    ASSERT_TRUE(delta && (*delta)["type"] == "stream_delta");
    ASSERT_EQ(agentd.stop(SIGKILL), 128 + SIGKILL);
  }
  AgentdProcess again(options);
  EXPECT_TRUE(again.wait_for_log([](const json& line) {
    return line.value("msg", "") == "runs left running by an earlier agentd ended as interrupted" &&
           line.value("runs", 0) == 1;
  })) << again.stderr_text();
  SseClient replay(again.port(), "GET", "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + admin}});
  auto events = replay.rest(std::chrono::seconds(5));
  ASSERT_EQ(events.size(), 2u) << "the replay ends";
  EXPECT_EQ(events[0]["type"], "run_start");
  EXPECT_EQ(events[0]["session_id"], "cut");
  EXPECT_EQ(events[1]["type"], "done");
  EXPECT_EQ(events[1]["reason"], "interrupted");
  EXPECT_EQ(events[1]["run_id"], run_id);
  // The live client saw seq 1 and 2 (the delta): resuming after them gets the end, where
  // a done of seq 2 would never be sent again.
  EXPECT_EQ(events[1]["seq"], 999'999'999'999);
  SseClient resumed(again.port(), "GET", "/runs/" + run_id + "/events?after=2",
                    {{"Authorization", "Bearer " + admin}});
  auto rest = resumed.rest(std::chrono::seconds(5));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0]["type"], "done");
}

}  // namespace
}  // namespace agentrt::test
