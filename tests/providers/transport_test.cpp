// Transport trouble and broken streams, for every vendor: timeouts, refused and reset
// connections, malformed, truncated and failing streams. Text that arrived before the
// trouble still reaches the sink; no finish is reported.
#include "tests/providers/black_hole.h"
#include "tests/providers/harness.h"

#include <chrono>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

class Transport : public VendorTest {
 protected:
  // A provider that gives up after 300 ms of silence.
  std::unique_ptr<ProviderInstance> impatient() {
    json config = config_for(fake);
    config["stall_timeout_ms"] = 300;
    return make_provider(vendor(), config);
  }
};

// The text of the reply's first `deltas` events arrived, as text only (in as many
// fragments as the reads brought it: delta_emitter.h), then the call failed with `code`.
void expect_partial(const Outcome& out, const Reply& reply, int deltas, int32_t code) {
  EXPECT_EQ(out.code(), code) << out.message();
  std::string expected;
  const std::vector<std::string> fragments = delta_fragments(reply.text, reply.deltas);
  for (int i = 0; i < deltas; ++i) expected += fragments.at(static_cast<size_t>(i));
  EXPECT_EQ(out.text(), expected) << out.message();
  EXPECT_EQ(out.kinds, std::vector<uint32_t>(out.texts.size(), AGENTRT_DELTA_TEXT));
}

TEST_P(Transport, HangAfterHeadersTimesOutAfterTheStallTimeout) {
  fake.enqueue(Reply::hang_after_headers());
  auto provider = impatient();
  auto start = Clock::now();
  Outcome out = run(*provider, user_request("hi"));
  auto took = Clock::now() - start;
  EXPECT_EQ(out.code(), AGENTRT_ERR_TIMEOUT) << out.message();
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 1000ms);
  EXPECT_TRUE(fake.wait_for_client_abort(2s));
}

TEST_P(Transport, SilenceAfterSomeTextKeepsTheTextThenTimesOut) {
  Reply reply = Reply::hang_after_headers(2);
  reply.text = "alpha beta gamma";
  fake.enqueue(reply);
  auto provider = impatient();
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 2, AGENTRT_ERR_TIMEOUT);
}

TEST_P(Transport, NoHeadersAtAllTimesOut) {
  fake.enqueue(Reply::hang_before_headers());
  auto provider = impatient();
  auto start = Clock::now();
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_TIMEOUT) << out.message();
  EXPECT_LT(Clock::now() - start, 1000ms);
}

TEST_P(Transport, ConnectionRefusedIsUnavailable) {
  json config = config_for(fake);
  config["base_url"] = "http://127.0.0.1:" + std::to_string(unused_local_port());
  auto provider = make_provider(vendor(), config);
  Outcome out = run(*provider, user_request("hi"));
  EXPECT_EQ(out.code(), AGENTRT_ERR_UNAVAILABLE) << out.message();
  EXPECT_EQ(out.error->http_status, 0);
}

TEST_P(Transport, ConnectTimeoutIsTimeout) {
  BlackHole hole;
  json config = config_for(fake);
  config["base_url"] = "http://127.0.0.1:" + std::to_string(hole.port());
  config["connect_timeout_ms"] = 200;
  auto provider = make_provider(vendor(), config);
  auto start = Clock::now();
  Outcome out = run(*provider, user_request("hi"));
  auto took = Clock::now() - start;
  EXPECT_EQ(out.code(), AGENTRT_ERR_TIMEOUT) << out.message();
  EXPECT_NE(out.message().find("connect"), std::string::npos) << out.message();
  EXPECT_GE(took, 190ms);
  EXPECT_LT(took, 1000ms);
}

TEST_P(Transport, ResetMidStreamKeepsThePartialTextThenFails) {
  Reply reply = Reply::reset_after(2);
  reply.text = "one two six ten ";
  reply.deltas = 4;
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 2, AGENTRT_ERR_UPSTREAM);
  EXPECT_EQ(out.text(), "one two ");
}

TEST_P(Transport, MalformedEventKeepsThePartialTextThenFails) {
  Reply reply = Reply::malformed_after(1);
  reply.text = "one two three";
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 1, AGENTRT_ERR_UPSTREAM);
  EXPECT_NE(out.message().find("malformed"), std::string::npos) << out.message();
}

TEST_P(Transport, StreamWithoutItsEndMarkerIsTruncatedNotFinished) {
  Reply reply = Reply::truncated_after(3);
  reply.text = "one two three";
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 3, AGENTRT_ERR_UPSTREAM);
  EXPECT_NE(out.message().find("end marker"), std::string::npos) << out.message();
}

TEST_P(Transport, MidStreamErrorEventKeepsThePartialTextThenFails) {
  // Anthropic's usual mid-stream error is overloaded_error (tested on its own);
  // here a plain server fault.
  std::string type = vendor() == Vendor::anthropic ? "api_error" : "";
  Reply reply = Reply::error_event_after(1, type, "the model crashed");
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 1, AGENTRT_ERR_UPSTREAM);
  EXPECT_NE(out.message().find("the model crashed"), std::string::npos) << out.message();
}

TEST_P(Transport, AnErrorAfterTheLastDeltaStillFails) {
  Reply reply = Reply::error_event_after(99, vendor() == Vendor::anthropic ? "api_error" : "");
  fake.enqueue(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_partial(out, reply, 3, AGENTRT_ERR_UPSTREAM);
}

TEST_P(Transport, AnUpstreamThatLingersAfterItsEndMarkerStillFinishes) {
  Reply reply = Reply::answer("done already", 2);
  reply.hold_open = true;
  fake.enqueue(reply);
  // A stall timeout far beyond the 200 ms the transport grants an upstream to end its
  // response after the end marker, so a slow (sanitizer) build cannot blur the two.
  json config = config_for(fake);
  config["stall_timeout_ms"] = 2000;
  auto provider = make_provider(vendor(), config);
  auto start = Clock::now();
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.text(), "done already");
  EXPECT_LT(Clock::now() - start, 1000ms);  // well before the stall timeout
  EXPECT_TRUE(fake.wait_for_client_abort(1s));
}

AGENTRT_ALL_VENDORS(Transport);

}  // namespace
}  // namespace agentrt::test
