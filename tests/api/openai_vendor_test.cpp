// /v1/chat/completions through the bundled providers to fake upstreams that speak their
// vendors' wire formats (tests/fakes): the request's messages are the whole context the
// upstream gets, its generation parameters reach the vendors that have them, a tool
// round trip reaches OpenAI in OpenAI's form, and upstream failures are OpenAI's errors
// (an HTTP status before the first chunk, an error event after it).
#include "tests/api/openai_client.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

namespace agentrt::test::openai_vendor {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

HttpResponse complete(VendorSetup& s, const json& body) {
  return call(s.agentd, "POST", "/v1/chat/completions", s.admin, body);
}

// No history, no memory: the upstream gets the request's messages and nothing else.
TEST(OpenAiVendor, TheMessagesAreTheWholeContext) {
  VendorSetup s(Vendor::openai);
  ASSERT_EQ(call(s.agentd, "POST", "/memory", s.admin,
                 {{"layer", "about_me"}, {"content", "My name is Zed."}})
                .status,
            201);
  const json messages = {{{"role", "developer"}, {"content", "Be brief."}},
                         {{"role", "user"}, {"content", "first question"}},
                         {{"role", "assistant"}, {"content", "first answer"}},
                         {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "again"}}}}}};
  const std::string model = vendor_model(Vendor::openai);
  ASSERT_EQ(complete(s, {{"model", model}, {"messages", messages}}).status, 200);
  ASSERT_EQ(complete(s, {{"model", model}, {"messages", {messages[3]}}}).status, 200);
  const std::vector<RecordedRequest> sent = s.fake.requests();
  ASSERT_EQ(sent.size(), 2u);
  const json first = sent[0].json()["messages"];
  EXPECT_EQ(first, (json{{{"content", "Be brief."}, {"role", "system"}},
                         {{"content", "first question"}, {"role", "user"}},
                         {{"content", "first answer"}, {"role", "assistant"}},
                         {{"content", "again"}, {"role", "user"}}}))
      << "no memory, no history";
  EXPECT_EQ(sent[1].json()["messages"], (json{{{"content", "again"}, {"role", "user"}}}))
      << "the second call sees nothing of the first";
}

TEST(OpenAiVendor, GenerationParametersReachTheVendorsThatHaveThem) {
  const json parameters = {{"temperature", 0.5},
                           {"top_p", 0.9},
                           {"stop", {"END"}},
                           {"seed", 7},
                           {"presence_penalty", 0.5},
                           {"frequency_penalty", -0.5},
                           {"max_tokens", 64},
                           {"parallel_tool_calls", false},
                           {"tools", {{{"type", "function"}, {"function", {{"name", "f"}}}}}}};
  {
    VendorSetup s(Vendor::openai);
    ASSERT_EQ(complete(s, openai_body(vendor_model(Vendor::openai), "x", parameters)).status, 200);
    const json sent = s.fake.last_request().json();
    EXPECT_EQ(sent["temperature"], 0.5);
    EXPECT_EQ(sent["top_p"], 0.9);
    EXPECT_EQ(sent["stop"], json({"END"}));
    EXPECT_EQ(sent["seed"], 7);
    EXPECT_EQ(sent["presence_penalty"], 0.5);
    EXPECT_EQ(sent["frequency_penalty"], -0.5);
    EXPECT_EQ(sent["max_completion_tokens"], 64);
    EXPECT_EQ(sent["parallel_tool_calls"], false);
  }
  {
    VendorSetup s(Vendor::anthropic);
    json body = openai_body(vendor_model(Vendor::anthropic), "x", parameters);
    body.erase("max_tokens");
    body["max_completion_tokens"] = 32;  // the newer name wins over max_tokens
    ASSERT_EQ(complete(s, body).status, 200);
    const json sent = s.fake.last_request().json();
    EXPECT_EQ(sent["top_p"], 0.9);
    EXPECT_EQ(sent["stop_sequences"], json({"END"}));
    EXPECT_EQ(sent["max_tokens"], 32);
    EXPECT_EQ(sent["tool_choice"]["disable_parallel_tool_use"], true);
    EXPECT_FALSE(sent.contains("seed"));
  }
  {
    VendorSetup s(Vendor::ollama);
    ASSERT_EQ(complete(s, openai_body(vendor_model(Vendor::ollama), "x", parameters)).status, 200);
    const json options = s.fake.last_request().json()["options"];
    EXPECT_EQ(options["top_p"], 0.9);
    EXPECT_EQ(options["seed"], 7);
    EXPECT_EQ(options["stop"], json({"END"}));
    EXPECT_EQ(options["num_predict"], 64);
  }
}

TEST(OpenAiVendor, AToolRoundTripReachesOpenAiInItsOwnForm) {
  VendorSetup s(Vendor::openai);
  s.fake.enqueue(Reply::calling({{"call_abc1", "get_weather", R"({"city":"Paris"})"}}));
  s.fake.enqueue(Reply::answer("Sunny.", 2));
  const json tool = {
      {"type", "function"},
      {"function",
       {{"name", "get_weather"},
        {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}}}};
  const json question = {{"role", "user"}, {"content", "Weather in Paris?"}};
  const std::string model = vendor_model(Vendor::openai);
  const HttpResponse first = complete(
      s, {{"model", model},
          {"messages", {question}},
          {"tools", {tool}},
          {"tool_choice", {{"type", "function"}, {"function", {{"name", "get_weather"}}}}}});
  ASSERT_EQ(first.status, 200) << first.body;
  const json sent_first = s.fake.requests()[0].json();
  EXPECT_EQ(sent_first["tools"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(sent_first["tool_choice"],
            (json{{"function", {{"name", "get_weather"}}}, {"type", "function"}}));
  const json call_made = first.json()["choices"][0]["message"]["tool_calls"][0];
  EXPECT_EQ(call_made["id"], "call_abc1");
  EXPECT_EQ(first.json()["choices"][0]["finish_reason"], "tool_calls");

  const json second_body = {
      {"model", model},
      {"tools", {tool}},
      {"messages",
       {question,
        {{"role", "assistant"}, {"tool_calls", {call_made}}},
        {{"role", "tool"}, {"tool_call_id", "call_abc1"}, {"content", "sunny, 24C"}}}}};
  const HttpResponse second = complete(s, second_body);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["choices"][0]["message"]["content"], "Sunny.");
  const json messages = s.fake.requests()[1].json()["messages"];
  ASSERT_EQ(messages.size(), 3u) << messages.dump();
  EXPECT_EQ(messages[1]["tool_calls"][0]["id"], "call_abc1");
  EXPECT_EQ(messages[1]["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(messages[2],
            (json{{"content", "sunny, 24C"}, {"role", "tool"}, {"tool_call_id", "call_abc1"}}));
}

// Before the first chunk a failure is the HTTP error it is (so that OpenAI's clients
// retry a 5xx), with agentrt's status: an upstream's rate limit says rate_limit_error,
// its other failures server_error. After the first chunk: an error event and [DONE].
TEST(OpenAiVendor, UpstreamFailuresAreOpenAiErrors) {
  VendorSetup s(Vendor::openai);
  const std::string model = vendor_model(Vendor::openai);
  s.fake.set_default(Reply::failure(429).with_header("retry-after", "120"));
  const HttpResponse limited = complete(s, openai_body(model, "x"));
  EXPECT_TRUE(openai_error(limited, 503, "rate_limit_error"));
  EXPECT_EQ(limited.json()["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ(limited.header("Retry-After"), "120");
  const OpenAiStream refused =
      openai_stream(s.agentd, s.admin, openai_body(model, "x", {{"stream", true}}));
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(json::parse(refused.error_body)["error"]["type"], "rate_limit_error")
      << refused.error_body;

  s.fake.set_default(Reply::failure(500).with_header("retry-after-ms", "10"));
  const HttpResponse down = complete(s, openai_body(model, "x"));
  EXPECT_TRUE(openai_error(down, 503, "server_error"));
  EXPECT_EQ(down.json()["error"]["code"], "provider_unavailable");
  s.fake.set_default(Reply::failure(401));
  EXPECT_TRUE(openai_error(complete(s, openai_body(model, "x")), 502, "server_error"));

  Reply late = Reply::error_event_after(2);
  late.text = "alpha beta gamma delta";
  late.deltas = 4;
  s.fake.set_default(late);
  const OpenAiStream broken =
      openai_stream(s.agentd, s.admin, openai_body(model, "x", {{"stream", true}}));
  ASSERT_EQ(broken.status, 200) << broken.error_body;
  EXPECT_TRUE(broken.done);
  ASSERT_FALSE(broken.chunks.empty());
  const json& error = broken.chunks.back();
  ASSERT_TRUE(error.contains("error")) << error.dump();
  EXPECT_EQ(error["error"]["type"], "server_error");
  EXPECT_FALSE(streamed_text(broken).empty());
}

}  // namespace
}  // namespace agentrt::test::openai_vendor
