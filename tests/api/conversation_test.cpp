// /run and /chat against the echo provider: the event format, what is stored, replay
// of a run's events, and sessions across turns.
#include "tests/api/conversation_client.h"
#include "tests/api/tool_client.h"

#include <gtest/gtest.h>

#include <csignal>
#include <map>

namespace agentrt::test {
namespace {

using nlohmann::json;

class Conversation : public ::testing::Test {
 protected:
  void SetUp() override { admin = first_admin_token(agentd); }
  AgentdProcess agentd;
  std::string admin;
};

TEST_F(Conversation, RunStreamsTheDocumentedEvents) {
  const std::string text = "the quick brown fox jumps over the lazy dog";
  auto stream = open_run(agentd, admin, run_body(text, {{"session_id", "s-1"}}));
  ASSERT_EQ(stream->status(), 200);
  EXPECT_NE(stream->head().find("text/event-stream"), std::string::npos);
  EXPECT_NE(stream->head().find("X-Request-Id"), std::string::npos);
  auto events = stream->rest();
  ASSERT_GE(events.size(), 4u);
  const json& start = events.front();
  EXPECT_EQ(start["type"], "run_start");
  EXPECT_EQ(start["session_id"], "s-1");
  EXPECT_EQ(start["model"], "echo");
  EXPECT_TRUE(start["run_id"].is_string());
  EXPECT_EQ(start["timestamp"].get<std::string>().back(), 'Z');
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i]["seq"], i + 1);
  for (size_t i = 1; i + 1 < events.size(); ++i) EXPECT_EQ(events[i]["type"], "stream_delta");
  const json& done = events.back();
  EXPECT_EQ(done["type"], "done");
  EXPECT_EQ(done["reason"], "end_turn");
  EXPECT_EQ(done["run_id"], start["run_id"]);
  EXPECT_GT(done["usage"]["output_tokens"].get<int>(), 0);
  EXPECT_GT(done["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_EQ(joined_text(events), text);
}

TEST_F(Conversation, ChatAnswersAndStoresTheTurn) {
  auto response = call(agentd, "POST", "/chat", admin, run_body("hello agent"));
  ASSERT_EQ(response.status, 200) << response.body;
  const json& answer = response.json();
  EXPECT_EQ(answer["response"], "hello agent");
  EXPECT_EQ(answer["model"], "echo");
  EXPECT_EQ(answer["usage"]["output_tokens"], 3);
  std::string session = answer["session_id"];
  auto messages = call(agentd, "GET", "/sessions/" + session + "/messages", admin).json()["data"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["content"][0]["text"], "hello agent");
  EXPECT_EQ(messages[1]["run_id"], answer["run_id"]);
}

// One line per request, the run it ran included (core/log/request_log.h), for the
// synchronous and the streamed form alike.
TEST_F(Conversation, TheRequestLogLineCarriesItsRun) {
  auto chat = call(agentd, "POST", "/chat", admin, run_body("log me"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  auto stream = open_run(agentd, admin, run_body("stream me"));
  ASSERT_EQ(stream->status(), 200);
  auto events = stream->rest();
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(agentd.stop(SIGTERM), 0);
  std::map<std::string, json> runs;  // request lines by run id
  for (const json& line : agentd.log_lines()) {
    EXPECT_NE(line.value("msg", ""), "run finished") << line.dump();
    if (line.value("msg", "") == "request" && line.contains("run_id")) runs[line["run_id"]] = line;
  }
  ASSERT_EQ(runs.size(), 2u) << agentd.stderr_text();
  const json& chat_line = runs[chat.json()["run_id"]];
  EXPECT_EQ(chat_line["path"], "/chat");
  EXPECT_EQ(chat_line["status"], 200);
  EXPECT_EQ(chat_line["reason"], "end_turn");
  EXPECT_EQ(chat_line["attempts"], 1);
  EXPECT_EQ(chat_line["input_tokens"], chat.json()["usage"]["input_tokens"]);
  EXPECT_EQ(chat_line["output_tokens"], chat.json()["usage"]["output_tokens"]);
  EXPECT_EQ(chat_line["request_id"], chat.header("X-Request-Id"));
  const json& run_line = runs[events.back()["run_id"]];
  EXPECT_EQ(run_line["path"], "/run");
  EXPECT_EQ(run_line["output_tokens"], events.back()["usage"]["output_tokens"]);
}

TEST_F(Conversation, SecondTurnCarriesTheFirstUpstream) {
  json first = call(agentd, "POST", "/chat", admin, run_body(std::string(400, 'a'))).json();
  json second =
      call(agentd, "POST", "/chat", admin, run_body("b", {{"session_id", first["session_id"]}}))
          .json();
  // Echo counts every message it receives: the first turn's 800 bytes come along.
  EXPECT_GE(second["usage"]["input_tokens"].get<int>(), 200);
  auto sessions = call(agentd, "GET", "/sessions", admin).json()["data"];
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["id"], first["session_id"]);
}

TEST_F(Conversation, EventsOfAFinishedRunReplayExactly) {
  auto stream = open_run(agentd, admin, run_body("one two three four five"));
  auto events = stream->rest();
  std::string run_id = events.front()["run_id"];
  SseClient replay(agentd.port(), "GET", "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + admin}});
  ASSERT_EQ(replay.status(), 200);
  EXPECT_EQ(replay.rest(), events);
  SseClient after(agentd.port(), "GET", "/runs/" + run_id + "/events?after=2",
                  {{"Authorization", "Bearer " + admin}});
  auto tail = after.rest();
  ASSERT_EQ(tail.size(), events.size() - 2);
  EXPECT_EQ(tail.front()["seq"], 3);
  EXPECT_EQ(call(agentd, "GET", "/runs/run_nope/events", admin).status, 404);
  EXPECT_EQ(call(agentd, "GET", "/runs/" + run_id + "/events?after=x", admin).status, 400);
}

// Replayed and followed events carry `id: <seq>`, and Last-Event-ID resumes after it as
// ?after= does (which wins when both are given): what an EventSource does on its own.
TEST_F(Conversation, EventsCarryTheirSeqAsIdAndLastEventIdResumes) {
  auto stream = open_run(agentd, admin, run_body("one two three four five"));
  auto events = stream->rest();
  for (const auto& id : stream->ids()) EXPECT_FALSE(id) << "a /run stream has no ids";
  const std::string path = "/runs/" + events.front()["run_id"].get<std::string>() + "/events";
  SseClient replay(agentd.port(), "GET", path, {{"Authorization", "Bearer " + admin}});
  ASSERT_EQ(replay.rest(), events);
  ASSERT_EQ(replay.ids().size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(replay.ids()[i], events[i]["seq"]);
  SseClient resumed(agentd.port(), "GET", path,
                    {{"Authorization", "Bearer " + admin}, {"Last-Event-ID", "3"}});
  auto tail = resumed.rest();
  ASSERT_EQ(tail.size(), events.size() - 3);
  EXPECT_EQ(tail.front()["seq"], 4);
  SseClient both(agentd.port(), "GET", path + "?after=1",
                 {{"Authorization", "Bearer " + admin}, {"Last-Event-ID", "3"}});
  EXPECT_EQ(both.rest().front()["seq"], 2) << "after wins";
  auto bad = agentd.request("GET", path, "",
                            {{"Authorization", "Bearer " + admin}, {"Last-Event-ID", "x"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("Last-Event-ID"), std::string::npos) << bad.body;
}

TEST_F(Conversation, BadRequestsAreRefusedBeforeAnythingIsWritten) {
  std::vector<std::pair<json, std::string>> cases = {
      {{{"messages", {user_text("x")}}}, "model"},
      {run_body("x", {{"model", "nope"}}), "model"},
      {run_body("x", {{"messages", json::array()}}), "messages"},
      {run_body("x", {{"messages", "hi"}}), "messages"},
      {run_body("x", {{"messages",
                       {{{"role", "robot"}, {"content", {{{"type", "text"}, {"text", "x"}}}}}}}}),
       "role"},
      {run_body("x", {{"messages", {{{"role", "user"}, {"content", {{{"type", "audio"}}}}}}}}),
       "type"},
      {run_body("x", {{"messages",
                       {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", 5}}}}}}}}),
       "text"},
      {run_body("x", {{"messages",
                       {{{"role", "user"},
                         {"content", {{{"type", "image_url"}, {"url", "https://x/y.png"}}}}}}}}),
       "vision"},
      {run_body("x", {{"session_id", "bad id!"}}), "session_id"},
      {run_body("x", {{"if_busy", "maybe"}}), "if_busy"},
      {run_body("x", {{"max_tokens", 0}}), "max_tokens"},
      {run_body("x", {{"colour", "red"}}), "colour"},
  };
  for (const auto& [body, field] : cases) {
    for (const char* path : {"/run", "/chat"}) {
      auto response = call(agentd, "POST", path, admin, body);
      EXPECT_EQ(response.status, 400) << path << " " << body.dump();
      EXPECT_EQ(response.header("Content-Type"), "application/json");
      EXPECT_NE(response.json()["error"]["message"].get<std::string>().find(field),
                std::string::npos)
          << response.body;
    }
  }
  EXPECT_TRUE(call(agentd, "GET", "/sessions", admin).json()["data"].empty());
}

TEST_F(Conversation, DeletingASessionRemovesItsMessagesAndRuns) {
  json answer = call(agentd, "POST", "/chat", admin, run_body("remember me")).json();
  std::string session = answer["session_id"];
  EXPECT_EQ(call(agentd, "DELETE", "/sessions/" + session, admin).status, 204);
  EXPECT_EQ(call(agentd, "GET", "/sessions/" + session + "/messages", admin).status, 404);
  EXPECT_EQ(
      call(agentd, "GET", "/runs/" + answer["run_id"].get<std::string>() + "/events", admin).status,
      404);
  EXPECT_EQ(call(agentd, "DELETE", "/sessions/" + session, admin).status, 404);
}

// agentd keeps a session's recent history in memory between runs (history_cache.h):
// a session deleted and begun again under the same id must carry none of the old turns.
TEST_F(Conversation, ASessionBegunAgainUnderADeletedOnesIdCarriesNoneOfItsTurns) {
  json reuse = {{"session_id", "ses_reused"}};
  for (int turn = 0; turn < 3; ++turn)
    ASSERT_EQ(call(agentd, "POST", "/chat", admin, run_body(std::string(800, 'a'), reuse)).status,
              200);
  json long_turn = call(agentd, "POST", "/chat", admin, run_body("b", reuse)).json();
  EXPECT_GE(long_turn["usage"]["input_tokens"].get<int>(), 1200) << "the old turns came along";
  ASSERT_EQ(call(agentd, "DELETE", "/sessions/ses_reused", admin).status, 204);
  // Echo counts a token per 4 bytes it receives, and answers with what it was sent.
  json anew = call(agentd, "POST", "/chat", admin, run_body(std::string(80, 'c'), reuse)).json();
  EXPECT_LT(anew["usage"]["input_tokens"].get<int>(), 100) << anew.dump();
  json next = call(agentd, "POST", "/chat", admin, run_body("d", reuse)).json();
  EXPECT_GE(next["usage"]["input_tokens"].get<int>(), 40) << "lost the new turn";
  EXPECT_LT(next["usage"]["input_tokens"].get<int>(), 200) << next.dump();
}

// An upstream that never stops once grew agentd by gigabytes and lost the turn to
// SQLite's string limit: the answer is cut at limits.max_answer_bytes, at a letter's
// end, and the run fails as a provider error with what came so far stored.
TEST(ConversationLimits, AnAnswerPastMaxAnswerBytesIsCutAndTheRunFails) {
  TempDir dir;
  AgentdProcess agentd(
      with_args({"--config", dir.write("c.json", R"({"limits":{"max_answer_bytes":1024}})")}));
  std::string admin = first_admin_token(agentd);
  std::string text = "a";
  for (int i = 0; i < 1500; ++i) text += "\xD1\x8F";  // 3,001 bytes, echoed back
  auto response = call(agentd, "POST", "/chat", admin, run_body(text, {{"session_id", "long"}}));
  EXPECT_EQ(response.status, 502) << response.body.substr(0, 300);
  EXPECT_EQ(response.json()["error"]["code"], "provider_error");
  EXPECT_NE(response.body.find("limits.max_answer_bytes"), std::string::npos) << response.body;
  auto messages = call(agentd, "GET", "/sessions/long/messages", admin).json()["data"];
  ASSERT_EQ(messages.size(), 2u);
  // 1,023 bytes: the 1,024th would be the first half of a letter.
  EXPECT_EQ(messages[1]["content"][0]["text"], text.substr(0, 1023));
  // Within the limit nothing changes.
  auto fits = call(agentd, "POST", "/chat", admin, run_body(std::string(1000, 'b')));
  EXPECT_EQ(fits.status, 200) << fits.body.substr(0, 300);
}

// limits.history_cache_mb 0 holds no history in memory: each turn reads its session's
// history from the store and still carries every earlier turn.
TEST(ConversationContext, WithoutAHistoryCacheEachTurnCarriesTheEarlierOnes) {
  TempDir dir;
  AgentdProcess agentd(
      with_args({"--config", dir.write("c.json", R"({"limits":{"history_cache_mb":0}})")}));
  std::string admin = first_admin_token(agentd);
  json reuse = {{"session_id", "ses_uncached"}};
  int previous = 0;
  for (int turn = 0; turn < 4; ++turn) {
    json answer =
        call(agentd, "POST", "/chat", admin, run_body(std::string(400, 'a'), reuse)).json();
    // Echo counts a token per 4 bytes it receives, and answers with what it was sent.
    const int input = answer["usage"]["input_tokens"].get<int>();
    EXPECT_GE(input, previous + 100) << "turn " << turn << " lost the earlier ones";
    previous = input;
  }
}

TEST(ConversationContext, ATinyContextWindowDropsTheOldestTurns) {
  AgentdProcess agentd;
  std::string admin = first_admin_token(agentd);
  json provider = {{"providers",
                    {{{"name", "tiny"},
                      {"type", "echo"},
                      {"models", {{{"id", "tiny-echo"}, {"context_window", 120}}}}}}}};
  ASSERT_EQ(call(agentd, "POST", "/admin/shared-providers", admin, provider).status, 200);
  json body = run_body(std::string(300, 'x'), {{"model", "tiny-echo"}, {"session_id", "t"}});
  ASSERT_EQ(call(agentd, "POST", "/chat", admin, body).status, 200);
  json second = call(agentd, "POST", "/chat", admin,
                     run_body("short", {{"model", "tiny-echo"}, {"session_id", "t"}}))
                    .json();
  // 300 + 300 bytes of history would be ~150 tokens: both earlier messages were dropped.
  EXPECT_LT(second["usage"]["input_tokens"].get<int>(), 10) << second.dump();
  auto too_big = call(agentd, "POST", "/chat", admin,
                      run_body(std::string(1000, 'y'), {{"model", "tiny-echo"}}));
  EXPECT_EQ(too_big.status, 400);
  EXPECT_NE(too_big.body.find("context window"), std::string::npos);
}

// What every OpenAI-shaped client sends: a string content is one text part, stored and
// sent as if it had been written as one; a tool message still needs its parts.
TEST_F(Conversation, AStringContentIsOneTextPart) {
  const json body = {{"model", "echo"},
                     {"session_id", "plain"},
                     {"messages",
                      {{{"role", "system"}, {"content", "Be brief."}},
                       {{"role", "user"}, {"content", "hello there"}}}}};
  auto answer = call(agentd, "POST", "/chat", admin, body);
  ASSERT_EQ(answer.status, 200) << answer.body;
  const json stored = call(agentd, "GET", "/sessions/plain/messages", admin).json()["data"];
  ASSERT_EQ(stored.size(), 3u) << stored.dump();
  EXPECT_EQ(stored[1]["content"], json::parse(R"([{"type":"text","text":"hello there"}])"));
  for (const json& content : {json(42), json(nullptr), json::array()}) {
    json bad = run_body("x");
    bad["messages"][0]["content"] = content;
    auto refused = call(agentd, "POST", "/chat", admin, bad);
    EXPECT_EQ(refused.status, 400) << content;
    EXPECT_NE(refused.body.find("must be a string or a non-empty array"), std::string::npos)
        << refused.body;
  }
  json tool = run_body("x", {{"session_id", "plain"}});
  tool["messages"] = {{{"role", "tool"}, {"content", "result"}}};
  auto refused = call(agentd, "POST", "/chat", admin, tool);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("for a tool message: an array"), std::string::npos) << refused.body;
}

// A call made by a session's second run, whose first run's messages the history cache
// already holds, is pending for the third: the cache keeps each message's tool parts.
TEST_F(Conversation, AThirdRunAnswersTheCallOfTheSecond) {
  const json tools = {weather_tool()};
  ASSERT_EQ(
      call(agentd, "POST", "/chat", admin, run_body("hello", {{"session_id", "three"}})).status,
      200);
  const json second = call(agentd, "POST", "/chat", admin,
                           run_body(R"(call get_weather {"city":"Oslo"})",
                                    {{"session_id", "three"}, {"tools", tools}}))
                          .json();
  ASSERT_EQ(second["reason"], "tool_use") << second.dump();
  json third = run_body("", {{"session_id", "three"}, {"tools", tools}});
  third["messages"] = {tool_message({{second["tool_calls"][0]["call_id"], "snow"}})};
  auto answered = call(agentd, "POST", "/chat", admin, third);
  EXPECT_EQ(answered.status, 200) << answered.body;
  EXPECT_NE(answered.body.find("snow"), std::string::npos) << answered.body;
}

}  // namespace
}  // namespace agentrt::test
