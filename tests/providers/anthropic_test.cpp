// What only the Anthropic provider does: the Messages request (top-level system,
// required max_tokens, image sources, its headers), cache tokens, overloaded.
#include "tests/providers/harness.h"

namespace agentrt::test {
namespace {

using nlohmann::json;

class Anthropic : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::anthropic, config_for(fake)); }
  FakeUpstream fake{Vendor::anthropic};
  std::unique_ptr<ProviderInstance> provider;
};

TEST_F(Anthropic, SendsTheMessagesWireFormat) {
  Outcome out = run(*provider, conversation_request());
  ASSERT_FALSE(out.error) << out.message();
  RecordedRequest sent = fake.last_request();
  EXPECT_EQ(sent.path, "/v1/messages");
  EXPECT_EQ(sent.header("x-api-key"), kTestKey);
  EXPECT_EQ(sent.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(sent.header("content-type"), "application/json");
  EXPECT_EQ(sent.header("authorization"), "");
  json text = {{"type", "text"}};
  json expected = {
      {"model", kModel},
      {"max_tokens", 100},
      {"temperature", 0.25},
      {"stream", true},
      {"system", "You are terse."},
      {"messages",
       json::array(
           {{{"role", "user"},
             {"content",
              json::array(
                  {{{"type", "text"}, {"text", "What is in these pictures?"}},
                   {{"type", "image"}, {"source", {{"type", "url"}, {"url", kImageLink}}}},
                   {{"type", "image"},
                    {"source",
                     {{"type", "base64"}, {"media_type", "image/png"}, {"data", kPngBase64}}}}})}},
            {{"role", "assistant"},
             {"content", json::array({{{"type", "text"}, {"text", "Two cats."}}})}},
            {{"role", "user"},
             {"content", json::array({{{"type", "text"}, {"text", "Which is bigger?"}}})}}})}};
  EXPECT_EQ(sent.json(), expected);
}

TEST_F(Anthropic, DefaultsMaxTokensBecauseTheApiRequiresIt) {
  Outcome out = run(*provider, user_request("hi"));
  ASSERT_FALSE(out.error) << out.message();
  EXPECT_EQ(fake.last_request().json()["max_tokens"], 4096);
  EXPECT_FALSE(fake.last_request().json().contains("system"));
}

TEST_F(Anthropic, SeveralSystemMessagesBecomeSystemBlocksInOrder) {
  json request = user_request("hi");
  request["messages"].insert(request["messages"].begin(), text_message("system", "Second."));
  request["messages"].insert(request["messages"].begin(), text_message("system", "First."));
  ASSERT_FALSE(run(*provider, request).error);
  json body = fake.last_request().json();
  EXPECT_EQ(body["system"], json::array({{{"type", "text"}, {"text", "First."}},
                                         {{"type", "text"}, {"text", "Second."}}}));
  EXPECT_EQ(body["messages"].size(), 1u);
}

TEST_F(Anthropic, AnImageInASystemMessageIsRefusedBeforeSending) {
  json request = user_request("hi");
  // One object: an initializer list here would insert its two pairs as two messages,
  // and the test once passed on that malformed request instead of the refusal.
  request["messages"].insert(
      request["messages"].begin(),
      json::object({{"role", "system"},
                    {"content", json::array({{{"type", "image_url"}, {"url", kImageLink}}})}}));
  Outcome out = run(*provider, request);
  EXPECT_EQ(out.code(), AGENTRT_ERR_REFUSED) << out.message();
  EXPECT_NE(out.message().find("only text in system messages"), std::string::npos);
  EXPECT_EQ(fake.request_count(), 0u);
}

TEST_F(Anthropic, CacheReadsAndWritesCountAsInput) {
  Reply reply = Reply::answer("cached", 1);
  reply.usage = FakeUsage{10, 7, /*cache_read=*/100, /*cache_creation=*/20};
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.usage, (json{{"input_tokens", 130}, {"output_tokens", 7}}));
  EXPECT_EQ(out.input_so_far, std::vector<int64_t>{130}) << "sent as message_start brought it";
}

// The input count message_start brings reaches the engine before the answer, so a
// stream that fails after it still reports the upstream's count.
TEST_F(Anthropic, AStreamThatFailsLateHasSentItsInputCount) {
  Reply reply = Reply::error_event_after(1, "api_error");
  reply.usage = FakeUsage{10, 7, /*cache_read=*/100, /*cache_creation=*/20};
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM) << out.message();
  EXPECT_EQ(out.input_so_far, std::vector<int64_t>{130});
  EXPECT_FALSE(out.usage) << "no final counts";
}

TEST_F(Anthropic, MapsStopReasons) {
  for (auto [word, reason] : {std::pair<const char*, const char*>{"stop_sequence", "end_turn"},
                              {"tool_use", "tool_use"},
                              {"refusal", "refusal"}}) {
    Reply reply = Reply::answer("x", 1);
    reply.finish = word;
    fake.enqueue(reply);
    EXPECT_EQ(run(*provider, user_request("hi")).finish, (json{{"reason", reason}})) << word;
  }
}

TEST_F(Anthropic, OverloadedEventMidStreamIsUnavailable) {
  fake.enqueue(Reply::error_event_after(1));  // overloaded_error, as the service sends it
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE) << out.message();
  EXPECT_EQ(out.texts.size(), 1u);
  EXPECT_NE(out.message().find("Overloaded"), std::string::npos) << out.message();
}

TEST_F(Anthropic, Status529IsUnavailable) {
  fake.enqueue(Reply::failure(529));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE) << out.message();
  EXPECT_EQ(out.error->http_status, 529);
}

TEST_F(Anthropic, RateLimitWithOnlyShouldRetryIsUnavailableWithoutDelay) {
  fake.enqueue(Reply::failure(429).with_header("x-should-retry", "true"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(out.error->retry_after_ms, 0u);
}

TEST_F(Anthropic, WithoutAKeyTheUpstreamRefuses) {
  auto keyless = make_provider(Vendor::anthropic, config_for(fake, ""));
  Outcome out = run(*keyless, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAUTHENTICATED) << out.message();
  EXPECT_NE(out.message().find("x-api-key header is required"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::test
