// Errors on the OpenAI-compatible paths (docs/openai-compatible.md): every refusal has
// OpenAI's shape {"error":{"message","type","param","code"}} with agentrt's status, the
// type that status has in OpenAI's API, and `param` naming the field at fault in
// OpenAI's words; an unknown model is 404 model_not_found. Nothing refused is stored.
#include "tests/api/openai_client.h"

#include <gtest/gtest.h>

namespace agentrt::test::openai_errors {
namespace {

using nlohmann::json;

const json kUser = {{"role", "user"}, {"content", "hi"}};
const json kCall = {{"id", "call_1"},
                    {"type", "function"},
                    {"function", {{"name", "get_weather"}, {"arguments", "{}"}}}};
const json kTool = {{"type", "function"}, {"function", {{"name", "get_weather"}}}};

struct BadBody {
  json body;
  std::string param;  // "" for null
};

json with(json extra) {
  json body = {{"model", "echo"}, {"messages", {kUser}}};
  for (auto& [key, value] : extra.items()) {
    if (value.is_null())
      body.erase(key);
    else
      body[key] = value;
  }
  return body;
}

json answer_to(const std::string& call_id) {
  return {{"role", "tool"}, {"tool_call_id", call_id}, {"content", "r"}};
}

std::vector<BadBody> bad_messages() {
  const json assistant_calls = {{"role", "assistant"}, {"tool_calls", {kCall}}};
  json badly_named_call = assistant_calls;
  badly_named_call["tool_calls"][0]["function"]["name"] = "bad name";
  return {
      {with({{"model", nullptr}}), "model"},
      {with({{"model", 7}}), "model"},
      {with({{"messages", nullptr}}), "messages"},
      {with({{"messages", json::array()}}), "messages"},
      {with({{"messages", "hi"}}), "messages"},
      {with({{"messages", {{{"role", "robot"}, {"content", "x"}}}}}), "messages[0].role"},
      {with({{"messages", {{{"content", "x"}}}}}), "messages[0].role"},
      {with({{"messages", {{{"role", "user"}}}}}), "messages[0].content"},
      {with({{"messages", {{{"role", "user"}, {"content", 5}}}}}), "messages[0].content"},
      {with({{"messages", {{{"role", "user"}, {"content", "x"}, {"colour", "red"}}}}}),
       "messages[0].colour"},
      {with({{"messages",
              {{{"role", "user"},
                {"content", {{{"type", "input_audio"}, {"input_audio", json::object()}}}}}}}}),
       "messages[0].content[0].type"},
      {with({{"messages",
              {{{"role", "user"},
                {"content",
                 {{{"type", "text"}, {"text", "see"}},
                  {{"type", "image_url"}, {"image_url", {{"url", "ftp://x/y.png"}}}}}}}}}}),
       "messages[0].content[1].image_url.url"},
      {with({{"messages", {{{"role", "system"}, {"content", {{{"type", "image_url"}}}}}, kUser}}}),
       "messages[0].content[0].type"},
      {with({{"messages", {kUser, {{"role", "assistant"}}}}}), "messages[1].content"},
      {with({{"messages", {kUser, answer_to("c")}}}), "messages[1].role"},
      {with({{"messages", {kUser, assistant_calls, answer_to("other")}}}),
       "messages[2].tool_call_id"},
      {with({{"messages", {kUser, assistant_calls, kUser}}}), "messages[1]"},
      {with({{"messages", {kUser, assistant_calls}}}), "messages[1]"},
      {with({{"messages", {kUser, {{"role", "tool"}, {"content", "r"}}}}}),
       "messages[1].tool_call_id"},
      {with({{"messages", {kUser, badly_named_call}}}), "messages[1].tool_calls[0].function.name"},
  };
}

std::vector<BadBody> bad_parameters() {
  return {
      {with({{"temperature", 3}}), "temperature"},
      {with({{"temperature", "hot"}}), "temperature"},
      {with({{"top_p", 1.5}}), "top_p"},
      {with({{"presence_penalty", -3}}), "presence_penalty"},
      {with({{"frequency_penalty", 2.5}}), "frequency_penalty"},
      {with({{"n", 2}}), "n"},
      {with({{"max_tokens", 0}}), "max_tokens"},
      {with({{"max_completion_tokens", "many"}}), "max_completion_tokens"},
      {with({{"seed", 1.5}}), "seed"},
      {with({{"stop", 7}}), "stop"},
      {with({{"stop", {"a", "b", "c", "d", "e"}}}), "stop"},
      {with({{"stop", {"a", 1}}}), "stop[1]"},
      {with({{"stream", "yes"}}), "stream"},
      {with({{"stream_options", {{"include_usage", true}}}}), "stream_options"},
      {with({{"stream", true}, {"stream_options", {{"include_usage", "yes"}}}}),
       "stream_options.include_usage"},
      {with({{"tools", json::array()}}), "tools"},
      {with({{"tools", {{{"type", "custom"}, {"custom", {{"name", "x"}}}}}}}), "tools[0].type"},
      {with({{"tools", {{{"type", "function"}, {"function", {{"name", "bad name!"}}}}}}}),
       "tools[0].function.name"},
      {with({{"tools", {kTool, {{"type", "function"}, {"function", {{"name", ""}}}}}}}),
       "tools[1].function.name"},
      {with({{"tools", {kTool, kTool}}}), "tools[1].function.name"},
      {with({{"tools",
              {{{"type", "function"}, {"function", {{"name", "f"}, {"parameters", "x"}}}}}}}),
       "tools[0].function.parameters"},
      {with({{"tools",
              {{{"type", "function"},
                {"function", {{"name", "f"}, {"parameters", {{"type", "array"}}}}}}}}}),
       "tools[0].function.parameters"},
      {with({{"tool_choice", "auto"}}), "tool_choice"},
      {with({{"tools", {kTool}}, {"tool_choice", "sometimes"}}), "tool_choice"},
      {with({{"tools", {kTool}},
             {"tool_choice", {{"type", "function"}, {"function", {{"name", "other"}}}}}}),
       "tool_choice.function.name"},
      {with({{"parallel_tool_calls", "yes"}}), "parallel_tool_calls"},
      {with({{"user", 42}}), "user"},
      {with({{"foo", 1}}), "foo"},
      {with({{"functions", {{{"name", "f"}}}}}), "functions"},
  };
}

TEST(OpenAiErrors, EveryBadFieldIs400NamingItInOpenAisShape) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  std::vector<BadBody> bad_bodies = bad_messages();
  for (BadBody& bad : bad_parameters()) bad_bodies.push_back(std::move(bad));
  for (const BadBody& bad : bad_bodies) {
    const HttpResponse response = call(agentd, "POST", "/v1/chat/completions", admin, bad.body);
    EXPECT_TRUE(openai_error(response, 400, "invalid_request_error", bad.param)) << bad.body.dump();
    EXPECT_EQ(response.json()["error"]["code"], "invalid_request") << response.body;
    // The stream's refusals are the same plain errors, before any event.
    json streamed = bad.body;
    if (!streamed.contains("stream")) streamed["stream"] = true;
    if (bad.param == "stream_options") continue;  // asks for no stream, on purpose
    EXPECT_TRUE(openai_error(call(agentd, "POST", "/v1/chat/completions", admin, streamed), 400,
                             "invalid_request_error", bad.param))
        << streamed.dump();
  }
  EXPECT_TRUE(call(agentd, "GET", "/sessions", admin).json()["data"].empty())
      << "a refused request stores nothing";
}

TEST(OpenAiErrors, AnUnknownModelIs404ModelNotFound) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const HttpResponse chat =
      call(agentd, "POST", "/v1/chat/completions", admin, with({{"model", "gpt-nope"}}));
  EXPECT_TRUE(openai_error(chat, 404, "invalid_request_error", "model"));
  EXPECT_EQ(chat.json()["error"]["code"], "model_not_found");
  const HttpResponse model = call(agentd, "GET", "/v1/models/gpt-nope", admin);
  EXPECT_TRUE(openai_error(model, 404, "invalid_request_error", "model"));
  EXPECT_EQ(model.json()["error"]["code"], "model_not_found");
}

TEST(OpenAiErrors, AuthenticationAndRoutingFailuresHaveOpenAisShapeToo) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const HttpResponse missing = call(agentd, "POST", "/v1/chat/completions", "", with({}));
  EXPECT_TRUE(openai_error(missing, 401, "authentication_error"));
  EXPECT_EQ(missing.header("WWW-Authenticate"), "Bearer");
  EXPECT_FALSE(missing.header("X-Request-Id").empty());
  EXPECT_TRUE(openai_error(call(agentd, "GET", "/v1/models", "art_0000000000000000nope"), 401,
                           "authentication_error"));
  EXPECT_TRUE(openai_error(call(agentd, "GET", "/v1/nope", admin), 404, "not_found_error"));
  EXPECT_TRUE(openai_error(call(agentd, "GET", "/v1/chat/completions", admin), 405,
                           "invalid_request_error"));
  const HttpResponse malformed =
      agentd.request("POST", "/v1/chat/completions", "{\"model\":", auth_headers(admin));
  EXPECT_TRUE(openai_error(malformed, 400, "invalid_request_error"));
  Headers text = {{"Authorization", "Bearer " + admin}, {"Content-Type", "text/plain"}};
  EXPECT_TRUE(openai_error(agentd.request("POST", "/v1/chat/completions", with({}).dump(), text),
                           415, "invalid_request_error"));
  // agentrt's own routes keep agentrt's shape.
  EXPECT_EQ(call(agentd, "GET", "/nope", admin).json()["error"]["code"], "not_found");
  EXPECT_TRUE(call(agentd, "GET", "/nope", admin).json()["error"].contains("request_id"));
}

// A model without vision refuses an image, as /run does, naming the message.
TEST(OpenAiErrors, AnImageToAModelWithoutVisionIsRefused) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json image = {
      {"role", "user"},
      {"content",
       {{{"type", "text"}, {"text", "see"}},
        {{"type", "image_url"}, {"image_url", {{"url", "https://x.test/a.png"}}}}}}};
  EXPECT_TRUE(openai_error(
      call(agentd, "POST", "/v1/chat/completions", admin, with({{"messages", {image}}})), 400,
      "invalid_request_error", "messages[0].content"));
}

// The OpenAI parameters agentrt has no use for are accepted and change nothing.
TEST(OpenAiErrors, TheIgnoredParametersAreAccepted) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json ignored = {{"logprobs", true},
                        {"top_logprobs", 2},
                        {"logit_bias", {{"50256", -100}}},
                        {"metadata", {{"k", "v"}}},
                        {"store", false},
                        {"service_tier", "auto"},
                        {"reasoning_effort", "low"},
                        {"response_format", {{"type", "json_object"}}},
                        {"modalities", {"text"}},
                        {"prompt_cache_key", "k"},
                        {"safety_identifier", "s"},
                        {"verbosity", "low"},
                        {"n", 1}};
  const HttpResponse answer =
      call(agentd, "POST", "/v1/chat/completions", admin, openai_body("echo", "hello", ignored));
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json()["choices"][0]["message"]["content"], "hello");
}

}  // namespace
}  // namespace agentrt::test::openai_errors
