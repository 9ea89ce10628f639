// What only the Ollama provider does: the native /api/chat request (string content,
// bare base64 images, options), optional auth, and its count and error quirks.
#include "tests/providers/harness.h"

namespace agentrt::test {
namespace {

using nlohmann::json;

class Ollama : public ::testing::Test {
 protected:
  void SetUp() override { provider = make_provider(Vendor::ollama, config_for(fake, "")); }
  FakeUpstream fake{Vendor::ollama};
  std::unique_ptr<ProviderInstance> provider;
};

json inline_image_request() {
  json request = conversation_request();
  json& parts = request["messages"][1]["content"];
  parts.erase(1);  // Ollama cannot fetch links
  return request;
}

TEST_F(Ollama, SendsTheChatWireFormat) {
  Outcome out = run(*provider, inline_image_request());
  ASSERT_FALSE(out.error) << out.message();
  RecordedRequest sent = fake.last_request();
  EXPECT_EQ(sent.path, "/api/chat");
  EXPECT_EQ(sent.header("content-type"), "application/json");
  EXPECT_EQ(sent.header("authorization"), "");  // no key configured, none sent
  json expected = {
      {"model", kModel},
      {"stream", true},
      {"options", {{"num_ctx", 8192}, {"num_predict", 100}, {"temperature", 0.25}}},
      {"messages", json::array({{{"role", "system"}, {"content", "You are terse."}},
                                {{"role", "user"},
                                 {"content", "What is in these pictures?"},
                                 {"images", json::array({kPngBase64})}},
                                {{"role", "assistant"}, {"content", "Two cats."}},
                                {{"role", "user"}, {"content", "Which is bigger?"}}})}};
  EXPECT_EQ(sent.json(), expected);
}

TEST_F(Ollama, JoinsSeveralTextPartsWithNewlines) {
  json request = user_request("first");
  request["messages"][0]["content"].push_back({{"type", "text"}, {"text", "second"}});
  ASSERT_FALSE(run(*provider, request).error);
  EXPECT_EQ(fake.last_request().json()["messages"][0]["content"], "first\nsecond");
  EXPECT_EQ(fake.last_request().json()["options"], (json{{"num_ctx", 8192}}));
}

// Ollama's own window (2,048 or 4,096 tokens) cuts a longer prompt from the front,
// system message first, and says nothing; the engine fills the configured one.
TEST_F(Ollama, AsksForTheContextWindowTheConfigDeclaresForTheModel) {
  json config = config_for(fake, "");
  config["models"] =
      json::array({{{"id", "small"}, {"context_window", 2048}, {"supports_vision", false}},
                   {{"id", kModel}, {"context_window", 32768}, {"supports_vision", true}}});
  auto wide = make_provider(Vendor::ollama, config);
  ASSERT_FALSE(run(*wide, user_request("hi")).error);
  EXPECT_EQ(fake.last_request().json()["options"]["num_ctx"], 32768);
  json small = user_request("hi");
  small["model"] = "small";
  ASSERT_FALSE(run(*wide, small).error);
  EXPECT_EQ(fake.last_request().json()["options"], (json{{"num_ctx", 2048}}));
}

TEST_F(Ollama, SendsABearerTokenOnlyWhenAKeyIsConfigured) {
  auto keyed = make_provider(Vendor::ollama, config_for(fake, "proxy-token"));
  ASSERT_FALSE(run(*keyed, user_request("hi")).error);
  EXPECT_EQ(fake.last_request().header("authorization"), "Bearer proxy-token");
}

TEST_F(Ollama, LinkedImagesAreRefusedBeforeSending) {
  Outcome out = run(*provider, conversation_request());
  EXPECT_EQ(out.code(), AGENTRT_ERR_REFUSED) << out.message();
  EXPECT_EQ(fake.request_count(), 0u);
  EXPECT_TRUE(out.kinds.empty() && out.input_so_far.empty()) << "the sink untouched";
}

TEST_F(Ollama, AMissingCountIsAZeroCount) {
  Reply reply = Reply::answer("all cached", 2);
  reply.usage = FakeUsage{0, 5};  // the fake omits prompt_eval_count, as Ollama does
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.usage, (json{{"input_tokens", 0}, {"output_tokens", 5}}));
}

TEST_F(Ollama, AnErrorLineAfterOutputIsUpstream) {
  Reply reply = Reply::error_event_after(2, "", "llama runner process has terminated");
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM);
  const std::vector<std::string> fragments = delta_fragments(reply.text, reply.deltas);
  EXPECT_EQ(out.text(), fragments.at(0) + fragments.at(1));
  EXPECT_NE(out.message().find("llama runner process has terminated"), std::string::npos);
}

TEST_F(Ollama, ModelNotFoundIsUpstream) {
  fake.enqueue(Reply::failure(404, "", "model \"test-model\" not found, try pulling it first"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM);
  EXPECT_NE(out.message().find("try pulling it first"), std::string::npos) << out.message();
}

}  // namespace
}  // namespace agentrt::test
