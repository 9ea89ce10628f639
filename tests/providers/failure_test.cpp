// HTTP failures, for every vendor: the error code the engine decides retries on, the
// status, the delay the upstream asked for, and never the key in a message.
#include "tests/providers/harness.h"

#include <ctime>

namespace agentrt::test {
namespace {

using nlohmann::json;

using Failures = VendorTest;

TEST_P(Failures, RateLimitWithRetryAfterSecondsIsUnavailable) {
  fake.enqueue(Reply::failure(429).with_header("retry-after", "2"));
  Outcome out = run(*provider, user_request("hi"));
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE) << out.message();
  EXPECT_EQ(out.error->http_status, 429);
  EXPECT_EQ(out.error->retry_after_ms, 2000u);
  EXPECT_NE(out.message().find("HTTP 429"), std::string::npos) << out.message();
  EXPECT_TRUE(out.kinds.empty());
}

TEST_P(Failures, RetryAfterMsWinsOverRetryAfter) {
  fake.enqueue(
      Reply::failure(429).with_header("retry-after", "7").with_header("retry-after-ms", "1500"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(out.error->retry_after_ms, 1500u);
}

TEST_P(Failures, RetryAfterAsHttpDate) {
  std::time_t at = std::time(nullptr) + 30;
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&at));
  fake.enqueue(Reply::failure(503).with_header("Retry-After", date));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(out.error->http_status, 503);
  EXPECT_GE(out.error->retry_after_ms, 28000u);
  EXPECT_LE(out.error->retry_after_ms, 31000u);
}

TEST_P(Failures, ServerErrorsAreUnavailableWithoutDelay) {
  for (int status : {500, 502, 503, 504}) {
    fake.enqueue(Reply::failure(status));
    Outcome out = run(*provider, user_request("hi"));
    EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE) << status << ": " << out.message();
    EXPECT_EQ(out.error->http_status, status);
    EXPECT_EQ(out.error->retry_after_ms, 0u);
  }
}

TEST_P(Failures, ShouldRetryHeaderOverridesTheStatus) {
  fake.enqueue(Reply::failure(429).with_header("x-should-retry", "false"));
  Outcome refused = run(*provider, user_request("hi"));
  EXPECT_EQ(refused.code(), AGENTRT_ERR_UPSTREAM) << refused.message();
  EXPECT_EQ(refused.error->http_status, 429);

  fake.enqueue(Reply::failure(409, "", "conflict").with_header("x-should-retry", "true"));
  Outcome retry = run(*provider, user_request("hi"));
  EXPECT_EQ(retry.code(), AGENTRT_ERR_UNAVAILABLE) << retry.message();
  EXPECT_EQ(retry.error->http_status, 409);
}

TEST_P(Failures, UnauthorizedIsUnauthenticatedAndHidesTheKey) {
  fake.enqueue(Reply::failure(401, "",
                              std::string("Incorrect API key provided: ") + kTestKey +
                                  " (and once more: " + kTestKey + ")"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAUTHENTICATED);
  EXPECT_EQ(out.error->http_status, 401);
  EXPECT_EQ(out.message().find(kTestKey), std::string::npos) << out.message();
  EXPECT_NE(out.message().find("Incorrect API key provided: [redacted]"), std::string::npos)
      << out.message();
  EXPECT_NE(out.message().find("(HTTP 401)"), std::string::npos) << out.message();
}

TEST_P(Failures, AWrongKeyIsRefusedByTheUpstream) {
  fake.require_key("the-right-key");
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAUTHENTICATED) << out.message();
  EXPECT_EQ(out.message().find(kTestKey), std::string::npos) << out.message();
  // Nor masked, as OpenAI quotes it: the key's fingerprint is its owner's.
  const std::string key = kTestKey;
  EXPECT_EQ(out.message().find(key.substr(key.size() - 4)), std::string::npos) << out.message();
  EXPECT_EQ(out.message().find("**"), std::string::npos) << out.message();
}

TEST_P(Failures, ForbiddenIsPermission) {
  fake.enqueue(Reply::failure(403));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_PERMISSION) << out.message();
  EXPECT_EQ(out.error->http_status, 403);
}

TEST_P(Failures, BadRequestIsUpstreamWithTheVendorMessage) {
  fake.enqueue(Reply::failure(400, "", "messages: text too long for this model"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM);
  EXPECT_EQ(out.error->http_status, 400);
  EXPECT_NE(out.message().find("text too long for this model"), std::string::npos) << out.message();
}

TEST_P(Failures, NotFoundIsUpstream) {
  fake.enqueue(Reply::failure(404, "", "model 'nope' not found"));
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM);
  EXPECT_EQ(out.error->http_status, 404);
}

// A proxy that compresses though the request asked for the body as it is (RFC 9110
// lets a server pick any coding when a request names none, so every request names
// identity). The body is refused by its Content-Encoding before a decoder sees a byte:
// gzip bytes would reach it as no shape the vendor sends. The fake labels its usual
// stream, so what fails without the check is that the answer is read at all.
TEST_P(Failures, ABodyEncodedThoughIdentityWasAskedForIsRefusedByName) {
  for (const char* coding : {"gzip", "BR", "identity, zstd"}) {
    fake.enqueue(Reply::answer("Hello there").with_header("Content-Encoding", coding));
    Outcome out = run(*provider, user_request("hi"));
    ASSERT_TRUE(out.error) << coding;
    EXPECT_EQ(out.code(), AGENTRT_ERR_UPSTREAM);
    EXPECT_NE(out.message().find(std::string("Content-Encoding: ") + coding), std::string::npos)
        << out.message();
    EXPECT_TRUE(out.texts.empty()) << "nothing of the body was read";
    ASSERT_FALSE(fake.requests().empty());
    EXPECT_EQ(fake.requests().back().header("accept-encoding"), "identity");
  }
}

// Identity says the body is as it is; a value that names no coding (a misconfigured
// server's "utf-8") says nothing about the bytes, which are read as they always were.
TEST_P(Failures, AnIdentityOrUnknownEncodingIsReadAsNone) {
  for (const char* coding : {"Identity", "utf-8"}) {
    fake.enqueue(Reply::answer("Hello there").with_header("Content-Encoding", coding));
    Outcome out = run(*provider, user_request("hi"));
    EXPECT_FALSE(out.error) << coding << ": " << out.message();
    EXPECT_EQ(out.text(), "Hello there") << coding;
  }
}

AGENTRT_ALL_VENDORS(Failures);

}  // namespace
}  // namespace agentrt::test
