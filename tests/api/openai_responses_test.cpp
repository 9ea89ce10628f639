// POST /v1/responses (docs/openai-compatible.md): the response object against the echo
// model, a function tool's round trip both statelessly (the client's items) and by
// previous_response_id (the run continues the previous run's session), the context a
// continued response sends upstream (the fake OpenAI upstream), and every bad input in
// OpenAI's error shape naming its field.
#include "tests/api/openai_client.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace agentrt::test::openai_responses {
namespace {

using nlohmann::json;

const json kWeather = {
    {"type", "function"},
    {"name", "get_weather"},
    {"description", "The weather in a city"},
    {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}};
const std::string kAsk = R"(call get_weather {"city":"Paris"})";

HttpResponse create(const AgentdProcess& agentd, const std::string& token, const json& body) {
  return call(agentd, "POST", "/v1/responses", token, body);
}

std::string run_of_response(const std::string& id) {
  return "run_" + id.substr(std::string("resp_").size());
}

std::string session_of(const AgentdProcess& agentd, const std::string& token,
                       const std::string& response_id) {
  SseClient stream(agentd.port(), "GET", "/runs/" + run_of_response(response_id) + "/events",
                   {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(stream.status(), 200) << stream.error_body();
  const std::vector<json> events = stream.rest();
  return events.empty() ? "" : events.front().value("session_id", "");
}

TEST(OpenAiResponses, AnswersAResponseObjectAndStoresTheRun) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const HttpResponse response =
      create(agentd, admin, {{"model", "echo"}, {"input", "hello there"}});
  ASSERT_EQ(response.status, 200) << response.body;
  const json answer = response.json();
  const std::string id = answer["id"];
  EXPECT_EQ(id.rfind("resp_", 0), 0u) << id;
  EXPECT_EQ(answer["object"], "response");
  EXPECT_EQ(answer["status"], "completed");
  EXPECT_EQ(answer["model"], "echo");
  EXPECT_TRUE(answer["created_at"].is_number_integer());
  EXPECT_TRUE(answer["error"].is_null());
  ASSERT_EQ(answer["output"].size(), 1u);
  const json& message = answer["output"][0];
  EXPECT_EQ(message["type"], "message");
  EXPECT_EQ(message["role"], "assistant");
  EXPECT_EQ(message["content"][0]["type"], "output_text");
  EXPECT_EQ(message["content"][0]["text"], "hello there");
  const json& usage = answer["usage"];
  EXPECT_GT(usage["input_tokens"], 0);
  EXPECT_EQ(usage["total_tokens"],
            usage["input_tokens"].get<int64_t>() + usage["output_tokens"].get<int64_t>());
  EXPECT_FALSE(session_of(agentd, admin, id).empty()) << "stored as run_<hex>";
  EXPECT_EQ(call(agentd, "GET", "/sessions", admin).json()["data"].size(), 1u);
}

TEST(OpenAiResponses, MaxOutputTokensEndsIncomplete) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json answer = create(agentd, admin,
                             {{"model", "echo"},
                              {"input", "a rather long sentence that the limit cuts short"},
                              {"max_output_tokens", 2}})
                          .json();
  EXPECT_EQ(answer["status"], "incomplete") << answer.dump();
  EXPECT_EQ(answer["incomplete_details"]["reason"], "max_output_tokens");
}

// The model's call is a function_call item; the client answers it on the same session
// with previous_response_id and a function_call_output.
TEST(OpenAiResponses, AToolRoundTripByPreviousResponseId) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json first =
      create(agentd, admin, {{"model", "echo"}, {"input", kAsk}, {"tools", {kWeather}}}).json();
  ASSERT_EQ(first["status"], "completed") << first.dump();
  ASSERT_EQ(first["output"].size(), 1u) << first.dump();
  const json& call_made = first["output"][0];
  EXPECT_EQ(call_made["type"], "function_call");
  EXPECT_EQ(call_made["name"], "get_weather");
  EXPECT_EQ(call_made["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(call_made["status"], "completed");
  const std::string call_id = call_made["call_id"];

  const json output = {
      {"type", "function_call_output"}, {"call_id", call_id}, {"output", "sunny, 24C"}};
  const HttpResponse second = create(agentd, admin,
                                     {{"model", "echo"},
                                      {"previous_response_id", first["id"]},
                                      {"input", {output}},
                                      {"tools", {kWeather}}});
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["output"][0]["content"][0]["text"], "get_weather returned: sunny, 24C");
  EXPECT_EQ(second.json()["previous_response_id"], first["id"]);
  EXPECT_EQ(session_of(agentd, admin, second.json()["id"]), session_of(agentd, admin, first["id"]))
      << "the same agentrt session";
  // An output that answers no pending call is the session's refusal.
  EXPECT_EQ(create(agentd, admin,
                   {{"model", "echo"},
                    {"previous_response_id", second.json()["id"]},
                    {"input", {output}},
                    {"tools", {kWeather}}})
                .status,
            400);
}

// Without previous_response_id the items are the whole context: the client's own
// function_call and its output.
TEST(OpenAiResponses, AToolRoundTripByItems) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json items = {
      {{"role", "user"}, {"content", kAsk}},
      {{"type", "function_call"},
       {"call_id", "call_1"},
       {"name", "get_weather"},
       {"arguments", R"({"city":"Paris"})"}},
      {{"type", "function_call_output"}, {"call_id", "call_1"}, {"output", "rain"}}};
  const HttpResponse response =
      create(agentd, admin, {{"model", "echo"}, {"input", items}, {"tools", {kWeather}}});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.json()["output"][0]["content"][0]["text"], "get_weather returned: rain");
}

// A continued response sends the session's history upstream, the instructions first.
TEST(OpenAiResponses, APreviousResponseIsTheContext) {
  VendorSetup s(Vendor::openai);
  const std::string model = vendor_model(Vendor::openai);
  const HttpResponse first = create(s.agentd, s.admin, {{"model", model}, {"input", "I am Zed."}});
  ASSERT_EQ(first.status, 200) << first.body;
  const HttpResponse second = create(s.agentd, s.admin,
                                     {{"model", model},
                                      {"instructions", "Be brief."},
                                      {"previous_response_id", first.json()["id"]},
                                      {"input", {{{"role", "user"}, {"content", "Who am I?"}}}}});
  ASSERT_EQ(second.status, 200) << second.body;
  const json sent = s.fake.last_request().json()["messages"];
  ASSERT_GE(sent.size(), 4u) << sent.dump();
  EXPECT_EQ(sent[0]["content"], "I am Zed.");
  EXPECT_EQ(sent[1]["role"], "assistant");
  EXPECT_EQ(sent.back()["content"], "Who am I?");
  EXPECT_NE(sent.dump().find("Be brief."), std::string::npos);
}

TEST(OpenAiResponses, BadInputsNameTheirField) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"input", "x"}}, "model"},
      {{{"model", "echo"}}, "input"},
      {{{"model", "echo"}, {"input", 3}}, "input"},
      {{{"model", "echo"}, {"input", json::array()}}, "input"},
      {{{"model", "echo"}, {"input", "x"}, {"stop", "x"}}, "stop"},
      {{{"model", "echo"}, {"input", {{{"role", "robot"}, {"content", "x"}}}}}, "input[0].role"},
      {{{"model", "echo"}, {"input", {{{"role", "user"}}}}}, "input[0].content"},
      {{{"model", "echo"},
        {"input", {{{"role", "user"}, {"content", {{{"type", "output_text"}, {"text", "x"}}}}}}}},
       "input[0].content[0].type"},
      {{{"model", "echo"}, {"input", {{{"type", "reasoning"}}}}}, "input[0].type"},
      {{{"model", "echo"},
        {"input", {{{"type", "function_call_output"}, {"call_id", "c"}, {"output", "x"}}}}},
       "input[0].call_id"},
      {{{"model", "echo"},
        {"input",
         {{{"type", "function_call"},
           {"call_id", "c"},
           {"name", "bad name"},
           {"arguments", "{}"}}}}},
       "input[0].name"},
      {{{"model", "echo"}, {"input", "x"}, {"temperature", 3}}, "temperature"},
      {{{"model", "echo"}, {"input", "x"}, {"top_p", "high"}}, "top_p"},
      {{{"model", "echo"}, {"input", "x"}, {"max_output_tokens", 0}}, "max_output_tokens"},
      {{{"model", "echo"}, {"input", "x"}, {"tools", {{{"type", "web_search"}}}}}, "tools[0].type"},
      {{{"model", "echo"}, {"input", "x"}, {"tools", {{{"type", "function"}}}}}, "tools[0].name"},
      {{{"model", "echo"}, {"input", "x"}, {"tool_choice", "sometimes"}}, "tool_choice"},
      {{{"model", "echo"},
        {"input", "x"},
        {"tools", {kWeather}},
        {"tool_choice", {{"type", "function"}, {"name", "other"}}}},
       "tool_choice.name"},
      {{{"model", "echo"}, {"input", "x"}, {"metadata", "x"}}, "metadata"},
      {{{"model", "echo"}, {"input", "x"}, {"stream", "yes"}}, "stream"},
  };
  for (const auto& [body, param] : cases)
    EXPECT_TRUE(openai_error(create(agentd, admin, body), 400, "invalid_request_error", param))
        << body.dump();
  EXPECT_TRUE(openai_error(create(agentd, admin, {{"model", "nope"}, {"input", "x"}}), 404,
                           "invalid_request_error", "model"));
  EXPECT_TRUE(openai_error(
      create(agentd, admin,
             {{"model", "echo"}, {"input", "x"}, {"previous_response_id", "resp_nothing"}}),
      404, "not_found_error", "previous_response_id"));
  // Another actor's response is not found either.
  const std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  const json mine = create(agentd, admin, {{"model", "echo"}, {"input", "x"}}).json();
  EXPECT_TRUE(openai_error(
      create(agentd, bob,
             {{"model", "echo"}, {"input", "x"}, {"previous_response_id", mine["id"]}}),
      404, "not_found_error", "previous_response_id"));
}

}  // namespace
}  // namespace agentrt::test::openai_responses

namespace agentrt::test::openai_responses {
namespace {

// Each event's data, its `event:` name checked against its type and its sequence_number
// against its place (from 0, one more each).
std::vector<json> stream_response(const AgentdProcess& agentd, const std::string& token,
                                  const json& body) {
  SseClient client(agentd.port(), "POST", "/v1/responses",
                   {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}},
                   body.dump());
  EXPECT_EQ(client.status(), 200) << client.error_body();
  std::vector<json> events = client.rest();
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i]["sequence_number"], static_cast<int64_t>(i)) << events[i].dump();
    EXPECT_EQ(client.names().at(i), events[i]["type"]) << events[i].dump();
  }
  return events;
}

std::vector<std::string> types_of(const std::vector<json>& events) {
  std::vector<std::string> types;
  for (const json& event : events) types.push_back(event["type"]);
  return types;
}

TEST(OpenAiResponses, StreamsTheResponsesEvents) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const std::vector<json> events = stream_response(
      agentd, admin, {{"model", "echo"}, {"input", "hello there"}, {"stream", true}});
  ASSERT_GE(events.size(), 8u);
  const std::vector<std::string> types = types_of(events);
  EXPECT_EQ(types[0], "response.created");
  EXPECT_EQ(types[1], "response.in_progress");
  EXPECT_EQ(types[2], "response.output_item.added");
  EXPECT_EQ(types[3], "response.content_part.added");
  EXPECT_EQ(types.back(), "response.completed");
  EXPECT_EQ(events[0]["response"]["status"], "in_progress");
  std::string text;
  for (const json& event : events)
    if (event["type"] == "response.output_text.delta") text += event["delta"].get<std::string>();
  EXPECT_EQ(text, "hello there");
  const size_t n = events.size();
  EXPECT_EQ(types[n - 4], "response.output_text.done");
  EXPECT_EQ(events[n - 4]["text"], "hello there");
  EXPECT_EQ(types[n - 3], "response.content_part.done");
  EXPECT_EQ(types[n - 2], "response.output_item.done");
  const json& done = events.back()["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["output"][0]["content"][0]["text"], "hello there");
  EXPECT_EQ(done["id"], events[0]["response"]["id"]);
}

TEST(OpenAiResponses, StreamsAFunctionCall) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const std::vector<json> events = stream_response(
      agentd, admin, {{"model", "echo"}, {"input", kAsk}, {"tools", {kWeather}}, {"stream", true}});
  const std::vector<std::string> types = types_of(events);
  const auto at = std::find(types.begin(), types.end(), "response.function_call_arguments.done");
  ASSERT_NE(at, types.end()) << json(types).dump();
  EXPECT_EQ(events[at - types.begin()]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(types.back(), "response.completed");
  const json& output = events.back()["response"]["output"];
  ASSERT_EQ(output.size(), 1u);
  EXPECT_EQ(output[0]["type"], "function_call");
  EXPECT_EQ(output[0]["name"], "get_weather");
}

}  // namespace
}  // namespace agentrt::test::openai_responses

namespace agentrt::test::openai_responses {
namespace {

using namespace std::chrono_literals;

// Waits until the response's status is no longer in_progress, and answers its object.
json settled(const AgentdProcess& agentd, const std::string& token, const std::string& id) {
  json object;
  for (int i = 0; i < 200; ++i) {
    object = call(agentd, "GET", "/v1/responses/" + id, token).json();
    if (object.value("status", "") != "in_progress") break;
    std::this_thread::sleep_for(50ms);
  }
  return object;
}

TEST(OpenAiResponses, GetAnswersTheStoredResponse) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json made = create(agentd, admin, {{"model", "echo"}, {"input", "hello there"}}).json();
  const HttpResponse got =
      call(agentd, "GET", "/v1/responses/" + made["id"].get<std::string>(), admin);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json()["id"], made["id"]);
  EXPECT_EQ(got.json()["status"], "completed");
  EXPECT_EQ(got.json()["output"][0]["content"][0]["text"], "hello there");
  EXPECT_EQ(got.json()["usage"], made["usage"]);
  EXPECT_TRUE(openai_error(call(agentd, "GET", "/v1/responses/resp_nothing", admin), 404,
                           "not_found_error"));
  const std::string bob = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "bob"}})["token"];
  EXPECT_TRUE(
      openai_error(call(agentd, "GET", "/v1/responses/" + made["id"].get<std::string>(), bob), 404,
                   "not_found_error"));
  EXPECT_TRUE(openai_error(
      call(agentd, "POST", "/v1/responses/" + made["id"].get<std::string>() + "/cancel", admin),
      400, "invalid_request_error", "response_id"))
      << "a finished response";
}

// The replay gives the events, and the numbers, the response's own stream had.
TEST(OpenAiResponses, AReplayGivesTheSameEvents) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const std::vector<json> live = stream_response(
      agentd, admin, {{"model", "echo"}, {"input", "one two three"}, {"stream", true}});
  ASSERT_FALSE(live.empty());
  const std::string id = live[0]["response"]["id"];
  auto replay = [&](const std::string& query) {
    SseClient client(agentd.port(), "GET", "/v1/responses/" + id + "?stream=true" + query,
                     {{"Authorization", "Bearer " + admin}});
    EXPECT_EQ(client.status(), 200) << client.error_body();
    return client.rest();
  };
  std::vector<json> all = replay("");
  ASSERT_EQ(all.size(), live.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i]["type"], live[i]["type"]);
    EXPECT_EQ(all[i]["sequence_number"], live[i]["sequence_number"]);
  }
  const std::vector<json> tail = replay("&starting_after=3");
  ASSERT_EQ(tail.size(), live.size() - 4);
  EXPECT_EQ(tail[0]["sequence_number"], 4);
  EXPECT_TRUE(openai_error(call(agentd, "GET", "/v1/responses/" + id + "?starting_after=x", admin),
                           400, "invalid_request_error", "starting_after"));
}

// background: true answers at once; the run goes on, is followed live, and is cancelled.
TEST(OpenAiResponses, ABackgroundResponseRunsOnAndIsCancelled) {
  VendorSetup s(Vendor::openai);
  const std::string model = vendor_model(Vendor::openai);
  s.fake.enqueue(Reply::hang_after_headers(1));
  const HttpResponse made =
      create(s.agentd, s.admin, {{"model", model}, {"input", "go on"}, {"background", true}});
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(made.json()["status"], "in_progress");
  const std::string id = made.json()["id"];
  ASSERT_TRUE(s.fake.wait_for_requests(1, 5s));
  EXPECT_EQ(call(s.agentd, "GET", "/v1/responses/" + id, s.admin).json()["status"], "in_progress");
  const HttpResponse cancelled = call(s.agentd, "POST", "/v1/responses/" + id + "/cancel", s.admin);
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.json()["status"], "cancelled");
  EXPECT_EQ(settled(s.agentd, s.admin, id)["status"], "cancelled");

  // A background run that ends by itself is there to read.
  s.fake.enqueue(Reply::answer("all done", 2));
  const json second =
      create(s.agentd, s.admin, {{"model", model}, {"input", "x"}, {"background", true}}).json();
  const json ended = settled(s.agentd, s.admin, second["id"]);
  EXPECT_EQ(ended["status"], "completed") << ended.dump();
  EXPECT_EQ(ended["output"][0]["content"][0]["text"], "all done");
  EXPECT_TRUE(openai_error(
      create(s.agentd, s.admin,
             {{"model", model}, {"input", "x"}, {"background", true}, {"stream", true}}),
      400, "invalid_request_error", "background"));
}

}  // namespace
}  // namespace agentrt::test::openai_responses

namespace agentrt::test::openai_responses {
namespace {

// A call made by a continued response is answered by continuing that one, the
// instructions coming again with each request, as the Agents SDK sends them.
TEST(OpenAiResponses, AContinuedResponsesCallIsAnsweredByContinuingIt) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json base = {{"model", "echo"}, {"tools", {kWeather}}, {"instructions", "Be brief."}};
  json body = base;
  body["input"] = "hello";
  const json first = create(agentd, admin, body).json();
  body = base;
  body["input"] = kAsk;
  body["previous_response_id"] = first["id"];
  const json second = create(agentd, admin, body).json();
  ASSERT_EQ(second["output"][0]["type"], "function_call") << second.dump();
  body = base;
  body["input"] = {{{"type", "function_call_output"},
                    {"call_id", second["output"][0]["call_id"]},
                    {"output", "fog"}}};
  body["previous_response_id"] = second["id"];
  const HttpResponse third = create(agentd, admin, body);
  ASSERT_EQ(third.status, 200) << third.body;
  EXPECT_EQ(third.json()["output"][0]["type"], "message");
  // The output follows the call it answers; the instructions come after it.
  const json stored =
      call(agentd, "GET",
           "/sessions/" + session_of(agentd, admin, third.json()["id"]) + "/messages", admin)
          .json()["data"];
  ASSERT_GE(stored.size(), 3u);
  const size_t answer = stored.size() - 3;
  EXPECT_EQ(stored[answer]["content"][0]["type"], "tool_result") << stored.dump();
  EXPECT_EQ(stored[answer - 1]["content"][0]["type"], "tool_call") << stored.dump();
  EXPECT_EQ(stored[answer + 1]["role"], "system") << stored.dump();
}

}  // namespace
}  // namespace agentrt::test::openai_responses
