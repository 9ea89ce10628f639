// POST /v1/chat/completions and GET /v1/models against the offline echo model
// (docs/openai-compatible.md): the chat.completion and chat.completion.chunk shapes, a
// tool round trip, each call stored as a run in a new session of the acting actor, and
// the paths of multi-cell mode.
#include "tests/api/openai_client.h"

#include <gtest/gtest.h>

#include <set>

namespace agentrt::test::openai_chat {
namespace {

using nlohmann::json;

const json kWeather = {
    {"type", "function"},
    {"function",
     {{"name", "get_weather"},
      {"description", "The weather in a city"},
      {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}}}};

HttpResponse complete(const AgentdProcess& agentd, const std::string& token, const json& body,
                      const std::string& path = "/v1/chat/completions") {
  return call(agentd, "POST", path, token, body);
}

// The run's stored events, replayed.
std::vector<json> run_events_of(const AgentdProcess& agentd, const std::string& token,
                                const std::string& run_id, const std::string& prefix = "") {
  SseClient stream(agentd.port(), "GET", prefix + "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(stream.status(), 200) << stream.error_body();
  return stream.rest();
}

TEST(OpenAiChat, AnswersAChatCompletionAndStoresTheRun) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const auto before = std::chrono::system_clock::now();
  const HttpResponse response = complete(agentd, admin, openai_body("echo", "hello there"));
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.header("Content-Type").rfind("application/json", 0), 0u);
  const json answer = response.json();
  const std::string id = answer["id"];
  EXPECT_EQ(id.rfind("chatcmpl-", 0), 0u) << id;
  EXPECT_EQ(answer["object"], "chat.completion");
  EXPECT_EQ(answer["model"], "echo");
  const int64_t created = answer["created"];
  EXPECT_NEAR(
      static_cast<double>(created),
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::seconds>(before.time_since_epoch()).count()),
      5);
  ASSERT_EQ(answer["choices"].size(), 1u);
  const json& choice = answer["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_EQ(choice["message"]["content"], "hello there");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  const json& usage = answer["usage"];
  EXPECT_GT(usage["prompt_tokens"], 0);
  EXPECT_GT(usage["completion_tokens"], 0);
  EXPECT_EQ(usage["total_tokens"],
            usage["prompt_tokens"].get<int64_t>() + usage["completion_tokens"].get<int64_t>());

  // Stored as a run in a new session of the acting actor (admin), like any other.
  const std::vector<json> events = run_events_of(agentd, admin, run_of(id));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front()["type"], "run_start");
  EXPECT_EQ(events.back()["type"], "done");
  EXPECT_EQ(joined_text(events), "hello there");
  const json sessions = call(agentd, "GET", "/sessions", admin).json()["data"];
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["id"], events.front()["session_id"]);
  EXPECT_EQ(sessions[0]["actor"], "admin");
  const json messages =
      call(agentd, "GET", "/sessions/" + sessions[0]["id"].get<std::string>() + "/messages", admin)
          .json()["data"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[1]["role"], "assistant");
}

// Every call is a new session: a second call sees nothing of the first, and is another
// session of its actor.
TEST(OpenAiChat, EachCallIsStatelessAndItsOwnSession) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json first = complete(agentd, admin, openai_body("echo", "the first")).json();
  const json second = complete(agentd, admin, openai_body("echo", "the second")).json();
  EXPECT_NE(first["id"], second["id"]);
  EXPECT_EQ(second["choices"][0]["message"]["content"], "the second");
  // Echo counts its input: a context with the first call in it would count more.
  EXPECT_EQ(first["usage"]["prompt_tokens"], second["usage"]["prompt_tokens"]);
  EXPECT_EQ(call(agentd, "GET", "/sessions", admin).json()["data"].size(), 2u);
}

TEST(OpenAiChat, TheActorIsTheTokensOrForAnAdminTheUserItNames) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  ASSERT_EQ(complete(agentd, admin, openai_body("echo", "as alice", {{"user", "alice"}})).status,
            200);
  ASSERT_EQ(complete(agentd, bob, openai_body("echo", "as bob", {{"user", "alice"}})).status, 200);
  ASSERT_EQ(complete(agentd, admin, openai_body("echo", "as admin")).status, 200);
  std::multiset<std::string> actors;
  const json sessions = call(agentd, "GET", "/sessions", admin).json()["data"];
  for (const json& session : sessions) actors.insert(session["actor"].get<std::string>());
  EXPECT_EQ(actors, (std::multiset<std::string>{"admin", "alice", "bob"}));
  EXPECT_EQ(call(agentd, "GET", "/sessions", bob).json()["data"].size(), 1u);
  EXPECT_TRUE(
      openai_error(complete(agentd, admin, openai_body("echo", "x", {{"user", " padded "}})), 400,
                   "invalid_request_error", "user"));
}

// The echo model calls a tool when asked in so many words; the client answers the call
// with a tool message after its own assistant message, as with OpenAI.
TEST(OpenAiChat, AToolRoundTrip) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json question = {{"role", "user"}, {"content", R"(call get_weather {"city":"Paris"})"}};
  const json first =
      complete(agentd, admin, {{"model", "echo"}, {"messages", {question}}, {"tools", {kWeather}}})
          .json();
  const json& choice = first["choices"][0];
  ASSERT_EQ(choice["finish_reason"], "tool_calls") << first.dump();
  EXPECT_TRUE(choice["message"]["content"].is_null());
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  const json& call_made = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call_made["type"], "function");
  EXPECT_EQ(call_made["function"]["name"], "get_weather");
  EXPECT_EQ(call_made["function"]["arguments"], R"({"city":"Paris"})");
  const std::string call_id = call_made["id"];

  const json answered = {
      {"model", "echo"},
      {"tools", {kWeather}},
      {"messages",
       {question,
        {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {call_made}}},
        {{"role", "tool"}, {"tool_call_id", call_id}, {"content", "sunny, 24C"}}}}};
  const HttpResponse second = complete(agentd, admin, answered);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(second.json()["choices"][0]["message"]["content"], "get_weather returned: sunny, 24C");
  // The stored session holds the client's call and its result as agentrt's parts.
  const std::vector<json> events =
      run_events_of(agentd, admin, run_of(second.json()["id"].get<std::string>()));
  const std::string session = events.front()["session_id"];
  const json stored =
      call(agentd, "GET", "/sessions/" + session + "/messages", admin).json()["data"];
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_EQ(stored[1]["content"][0]["type"], "tool_call");
  EXPECT_EQ(stored[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(stored[2]["content"][0]["tool_call_id"], call_id);
}

// role first, content deltas, the finish chunk, the usage chunk (choices []) when asked
// for, then [DONE]; every chunk of one call has the same id, created and model.
TEST(OpenAiChat, StreamsChunksInOpenAisShape) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const OpenAiStream stream =
      openai_stream(agentd, admin,
                    openai_body("echo", "one two three four",
                                {{"stream", true}, {"stream_options", {{"include_usage", true}}}}));
  ASSERT_EQ(stream.status, 200) << stream.error_body;
  ASSERT_TRUE(stream.done);
  ASSERT_GE(stream.chunks.size(), 4u);
  const json& first = stream.chunks.front();
  for (const json& chunk : stream.chunks) {
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    EXPECT_EQ(chunk["id"], first["id"]);
    EXPECT_EQ(chunk["created"], first["created"]);
    EXPECT_EQ(chunk["model"], "echo");
    EXPECT_TRUE(chunk.contains("usage")) << "include_usage: every chunk has usage";
  }
  EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
  EXPECT_TRUE(first["usage"].is_null());
  EXPECT_EQ(streamed_text(stream), "one two three four");
  const json& finish = stream.chunks[stream.chunks.size() - 2];
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(finish["choices"][0]["delta"], json::object());
  for (size_t i = 0; i + 2 < stream.chunks.size(); ++i)
    EXPECT_TRUE(stream.chunks[i]["choices"][0]["finish_reason"].is_null());
  const json& usage = stream.chunks.back();
  EXPECT_EQ(usage["choices"], json::array());
  EXPECT_GT(usage["usage"]["completion_tokens"], 0);
  EXPECT_EQ(usage["usage"]["total_tokens"], usage["usage"]["prompt_tokens"].get<int64_t>() +
                                                usage["usage"]["completion_tokens"].get<int64_t>());
  // The run is stored under the completion's id.
  const std::vector<json> events =
      run_events_of(agentd, admin, run_of(first["id"].get<std::string>()));
  EXPECT_EQ(joined_text(events), "one two three four");

  const OpenAiStream plain =
      openai_stream(agentd, admin, openai_body("echo", "no usage", {{"stream", true}}));
  ASSERT_TRUE(plain.done);
  for (const json& chunk : plain.chunks) {
    EXPECT_FALSE(chunk.contains("usage")) << chunk.dump();
    EXPECT_EQ(chunk["choices"].size(), 1u);
  }
  EXPECT_EQ(plain.chunks.back()["choices"][0]["finish_reason"], "stop");
}

TEST(OpenAiChat, StreamsToolCallsAsToolCallDeltas) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const OpenAiStream stream = openai_stream(
      agentd, admin,
      openai_body("echo", R"(call get_weather {"city":"Oslo"})",
                  {{"stream", true}, {"tools", {kWeather}}, {"parallel_tool_calls", false}}));
  ASSERT_EQ(stream.status, 200) << stream.error_body;
  ASSERT_TRUE(stream.done);
  std::vector<json> calls;
  for (const json& chunk : stream.chunks)
    if (chunk["choices"][0]["delta"].contains("tool_calls"))
      for (const json& call : chunk["choices"][0]["delta"]["tool_calls"]) calls.push_back(call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["index"], 0);
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(calls[0]["function"]["arguments"], R"({"city":"Oslo"})");
  EXPECT_EQ(stream.chunks.back()["choices"][0]["finish_reason"], "tool_calls");
}

TEST(OpenAiChat, ListsTheModels) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const HttpResponse list = call(agentd, "GET", "/v1/models", admin);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.json()["object"], "list");
  ASSERT_EQ(list.json()["data"].size(), 1u);
  const json& echo = list.json()["data"][0];
  EXPECT_EQ(echo,
            (json{{"id", "echo"}, {"object", "model"}, {"created", 0}, {"owned_by", "echo"}}));
  const HttpResponse one = call(agentd, "GET", "/v1/models/echo", admin);
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.json(), echo);
}

// Multi-cell mode serves /v1 under each cell, and the root /v1 is no route.
TEST(OpenAiChat, MultiCellPathsAreUnderTheCell) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  const std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "globex"}}).status, 201);
  const std::string carol =
      issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "carol"}, {"cell", "acme"}})["token"];
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/v1/models", carol).status, 200);
  EXPECT_EQ(call(agentd, "GET", "/v1/models", carol).status, 404);
  EXPECT_EQ(complete(agentd, carol, openai_body("echo", "x")).status, 404);
  const HttpResponse answer =
      complete(agentd, carol, openai_body("echo", "in acme"), "/cells/acme/v1/chat/completions");
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json()["choices"][0]["message"]["content"], "in acme");
  const json sessions = call(agentd, "GET", "/cells/acme/sessions", carol).json()["data"];
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["actor"], "carol");
  EXPECT_TRUE(call(agentd, "GET", "/cells/globex/sessions", admin).json()["data"].empty());
  EXPECT_TRUE(openai_error(
      complete(agentd, carol, openai_body("echo", "x"), "/cells/globex/v1/chat/completions"), 403,
      "permission_error"));
  EXPECT_TRUE(
      openai_error(call(agentd, "GET", "/cells/nowhere/v1/models", admin), 404, "not_found_error"));
  EXPECT_TRUE(
      openai_error(call(agentd, "GET", "/cells/acme/v1/nope", carol), 404, "not_found_error"));
  const OpenAiStream stream =
      openai_stream(agentd, carol, openai_body("echo", "streamed", {{"stream", true}}),
                    "/cells/acme/v1/chat/completions");
  EXPECT_TRUE(stream.done);
  EXPECT_EQ(streamed_text(stream), "streamed");
}

}  // namespace
}  // namespace agentrt::test::openai_chat
