// What only the OpenAI provider does: the Chat Completions request, its quota and
// finish-reason words.
#include "tests/providers/harness.h"

namespace agentrt::test {
namespace {

using nlohmann::json;

class OpenAi : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::openai, config_for(fake)); }
  FakeUpstream fake{Vendor::openai};
  std::unique_ptr<ProviderInstance> provider;
};

TEST_F(OpenAi, SendsTheChatCompletionsWireFormat) {
  Outcome out = run(*provider, conversation_request());
  ASSERT_FALSE(out.error) << out.message();
  RecordedRequest sent = fake.last_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.path, "/v1/chat/completions");
  EXPECT_EQ(sent.header("authorization"), std::string("Bearer ") + kTestKey);
  EXPECT_EQ(sent.header("content-type"), "application/json");
  json expected = {
      {"model", kModel},
      {"stream", true},
      {"stream_options", {{"include_usage", true}}},
      {"max_completion_tokens", 100},
      {"temperature", 0.25},
      {"messages",
       json::array(
           {{{"role", "system"}, {"content", "You are terse."}},
            {{"role", "user"},
             {"content",
              json::array({{{"type", "text"}, {"text", "What is in these pictures?"}},
                           {{"type", "image_url"}, {"image_url", {{"url", kImageLink}}}},
                           {{"type", "image_url"},
                            {"image_url",
                             {{"url", std::string("data:image/png;base64,") + kPngBase64}}}}})}},
            {{"role", "assistant"}, {"content", "Two cats."}},
            {{"role", "user"}, {"content", "Which is bigger?"}}})}};
  EXPECT_EQ(sent.json(), expected);
}

TEST_F(OpenAi, LeavesOutOptionalParametersNotGiven) {
  run(*provider, user_request("hi"));
  json body = fake.last_request().json();
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
}

TEST_F(OpenAi, InsufficientQuotaIsNotWorthRetrying) {
  fake.enqueue(Reply::failure(429, "insufficient_quota",
                              "You exceeded your current quota, please check your plan.")
                   .with_header("retry-after", "1"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM) << out.message();
  EXPECT_EQ(out.error->http_status, 429);
  EXPECT_NE(out.message().find("exceeded your current quota"), std::string::npos);
}

TEST_F(OpenAi, WithoutAKeyNoAuthorizationIsSentAndTheUpstreamRefuses) {
  auto keyless = make_provider(Vendor::openai, config_for(fake, ""));
  Outcome out = run(*keyless, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAUTHENTICATED) << out.message();
  EXPECT_EQ(fake.last_request().header("authorization"), "");
}

TEST_F(OpenAi, MapsFinishReasons) {
  for (auto [word, reason] :
       {std::pair<const char*, const char*>{"content_filter", "content_filter"},
        {"tool_calls", "tool_use"},
        {"something_new", "something_new"}}) {
    Reply reply = Reply::answer("x", 1);
    reply.finish = word;
    fake.enqueue(reply);
    Outcome out = run(*provider, user_request("hi"));
    EXPECT_EQ(out.finish, (json{{"reason", reason}})) << word;
  }
}

// Some OpenAI-compatible servers end the body after the finish and usage chunks with no
// "data: [DONE]"; OpenAI's SDK does not wait for it. Such an answer is whole: it failed
// as "ended before its end marker". One cut before its finish_reason is still cut
// (Transport.StreamWithoutItsEndMarkerIsTruncatedNotFinished).
TEST_F(OpenAi, AnAnswerWhoseFinishCameIsWholeWithoutTheTerminator) {
  Reply reply = Reply::answer("all of it", 3);
  reply.no_terminator = true;
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(out.text(), "all of it");
  EXPECT_EQ(out.usage, (json{{"input_tokens", 12}, {"output_tokens", 5}}));
  EXPECT_EQ(out.finish, (json{{"reason", "end_turn"}}));
}

}  // namespace
}  // namespace agentrt::test
