// complete_async (ABI 1.2) against the fake upstreams, for every vendor: the same
// deltas and errors as the blocking complete, many calls on one instance without
// crosstalk, the sink used by one plugin thread at a time and never after done.
#include "tests/providers/async_harness.h"

#include <chrono>
#include <memory>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

using AsyncCall = AsyncTest;

// Texts, then usage, then finish, every call on one thread that is not the caller's.
void expect_well_ordered(const TestSink& sink) {
  EXPECT_EQ(sink.status(), AGENTRT_OK) << sink.error().message;
  EXPECT_EQ(sink.done_count(), 1);
  std::vector<uint32_t> kinds = sink.kinds();
  ASSERT_GE(kinds.size(), 2u);
  EXPECT_EQ(kinds.back(), static_cast<uint32_t>(AGENTRT_DELTA_FINISH));
  EXPECT_EQ(kinds[kinds.size() - 2], static_cast<uint32_t>(AGENTRT_DELTA_USAGE));
  EXPECT_EQ(sink.threads().size(), 1u);
  EXPECT_EQ(sink.threads().count(std::this_thread::get_id()), 0u);
  EXPECT_FALSE(sink.touched_after_done());
}

// Every delta but text, as "kind:data", in order.
std::vector<std::string> non_text(const TestSink& sink) {
  std::vector<std::string> out;
  const std::vector<uint32_t> kinds = sink.kinds();
  const std::vector<std::string> datas = sink.datas();
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] != AGENTRT_DELTA_TEXT) out.push_back(std::to_string(kinds[i]) + ":" + datas[i]);
  return out;
}

TEST_P(AsyncCall, AStreamGivesTheSameDeltasAsTheBlockingCall) {
  Reply reply = Reply::answer("alpha beta gamma délta", 4);
  reply.split_at = {7, 40};
  fake.set_default(reply);
  auto p = provider(config_for(fake));
  json request = {
      {"model", kModel},
      {"messages",
       json::array({text_message("system", "You are terse."), text_message("user", "Hi"),
                    text_message("assistant", "Hello."), text_message("user", "Say more")})},
      {"max_tokens", 100},
      {"temperature", 0.25}};

  TestSink blocking;
  agentrt_error_t error{};
  ASSERT_EQ(p->complete(request, blocking, &error), AGENTRT_OK) << error.message;
  TestSink async;
  run_async(*p, request, async);

  expect_well_ordered(async);
  // The text may come in other fragments (those of one read go as one:
  // delta_emitter.h); the answer, its usage and its finish may not differ.
  EXPECT_EQ(async.text(), "alpha beta gamma délta");
  EXPECT_EQ(blocking.text(), async.text());
  EXPECT_EQ(non_text(async), non_text(blocking));
  ASSERT_EQ(fake.request_count(), 2u);
  EXPECT_EQ(fake.requests()[0].body, fake.requests()[1].body);
  EXPECT_EQ(sent_key(vendor(), fake.requests()[1]), kTestKey);
}

// Each answer names its question, so any crosstalk between calls shows.
TEST_P(AsyncCall, TwoHundredConcurrentCallsOnOneInstanceStayApart) {
  fake.set_responder([](const RecordedRequest& request) {
    json last = request.json()["messages"].back()["content"];
    std::string question =
        last.is_string() ? last.get<std::string>() : last[0]["text"].get<std::string>();
    Reply reply = Reply::answer("answer to " + question, 4);
    reply.delta_delay = 5ms;
    return reply;
  });
  auto p = provider(config_for(fake));
  constexpr int kCalls = 200;
  std::vector<std::unique_ptr<TestSink>> sinks;
  for (int i = 0; i < kCalls; ++i) {
    sinks.push_back(std::make_unique<TestSink>());
    ASSERT_EQ(p->start(user_request("q" + std::to_string(i)), *sinks.back()), AGENTRT_OK);
  }
  std::set<std::thread::id> loop_threads;
  for (int i = 0; i < kCalls; ++i) {
    TestSink& sink = *sinks[i];
    ASSERT_TRUE(sink.wait_done(20s)) << "call " << i << " never ended";
    expect_well_ordered(sink);
    EXPECT_EQ(sink.text(), "answer to q" + std::to_string(i));
    for (std::thread::id id : sink.threads()) loop_threads.insert(id);
  }
  EXPECT_EQ(fake.request_count(), static_cast<size_t>(kCalls));
  EXPECT_LE(loop_threads.size(), expected_loops());
}

TEST_P(AsyncCall, AnUpstreamErrorMapsAsOnTheBlockingPathWithoutTheKey) {
  auto p = provider(config_for(fake));
  for (int status : {400, 401, 429, 503}) {
    Reply failure = Reply::failure(status, "", std::string("no, ") + kTestKey + " is refused");
    failure.with_header("retry-after", "3");
    fake.enqueue(failure);
    fake.enqueue(failure);
    TestSink blocking, async;
    agentrt_error_t expected{};
    int32_t code = p->complete(user_request("hi"), blocking, &expected);
    run_async(*p, user_request("hi"), async);

    agentrt_error_t got = async.error();
    EXPECT_NE(code, AGENTRT_OK);
    EXPECT_EQ(async.status(), code) << status;
    EXPECT_EQ(got.code, code);
    EXPECT_STREQ(got.message, expected.message);
    EXPECT_EQ(got.http_status, expected.http_status);
    EXPECT_EQ(got.retry_after_ms, expected.retry_after_ms);
    EXPECT_EQ(std::string(got.message).find(kTestKey), std::string::npos) << got.message;
    EXPECT_TRUE(async.kinds().empty());
    EXPECT_EQ(async.done_count(), 1);
  }
}

TEST_P(AsyncCall, ABrokenStreamKeepsItsTextAndFailsAsTheBlockingCallDoes) {
  Reply reply = Reply::malformed_after(1);
  reply.text = "one two three";
  fake.enqueue(reply);
  fake.enqueue(reply);
  auto p = provider(config_for(fake));
  TestSink blocking, async;
  agentrt_error_t expected{};
  int32_t code = p->complete(user_request("hi"), blocking, &expected);
  run_async(*p, user_request("hi"), async);
  EXPECT_EQ(code, AGENTRT_ERR_UPSTREAM);
  EXPECT_EQ(async.status(), code);
  EXPECT_STREQ(async.error().message, expected.message);
  EXPECT_EQ(async.datas(), blocking.datas());
  EXPECT_EQ(async.texts().size(), 1u);
}

TEST_P(AsyncCall, AStreamWithoutItsEndMarkerIsTruncated) {
  Reply reply = Reply::truncated_after(2);
  reply.text = "one two three";
  fake.enqueue(reply);
  auto p = provider(config_for(fake));
  TestSink sink;
  run_async(*p, user_request("hi"), sink);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_UPSTREAM);
  EXPECT_NE(std::string(sink.error().message).find("end marker"), std::string::npos)
      << sink.error().message;
  const std::vector<std::string> fragments = delta_fragments(reply.text, reply.deltas);
  EXPECT_EQ(sink.text(), fragments.at(0) + fragments.at(1));
}

TEST_P(AsyncCall, ASinkThatSaysStopEndsTheCallAndTheConnection) {
  Reply reply = Reply::answer("a b c d e f", 6);
  reply.delta_delay = 50ms;
  fake.enqueue(reply);
  auto p = provider(config_for(fake));
  TestSink sink;
  sink.refuse_text_after(1);
  run_async(*p, user_request("hi"), sink);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_CANCELLED);
  EXPECT_STREQ(sink.error().message, "cancelled");
  EXPECT_EQ(sink.texts().size(), 2u);  // the refused one was offered
  EXPECT_TRUE(fake.wait_for_client_abort(2s));
}

TEST_P(AsyncCall, AnUpstreamThatLingersAfterItsEndMarkerStillFinishes) {
  Reply reply = Reply::answer("done already", 2);
  reply.hold_open = true;
  fake.enqueue(reply);
  json config = config_for(fake);
  config["stall_timeout_ms"] = 2000;
  auto p = provider(config);
  TestSink sink;
  Clock::duration took = run_async(*p, user_request("hi"), sink);
  expect_well_ordered(sink);
  EXPECT_EQ(sink.text(), "done already");
  EXPECT_LT(took, 1000ms);
  EXPECT_TRUE(fake.wait_for_client_abort(1s));
}

TEST_P(AsyncCall, WhatCannotStartFailsAtOnceAndNeverEndsTheSink) {
  auto p = provider(config_for(fake));
  TestSink sink;
  agentrt_error_t error{};
  json bad = user_request("hi");
  bad.erase("messages");
  EXPECT_EQ(p->start(bad, sink, &error), AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error.code, AGENTRT_ERR_INVALID_ARGUMENT);

  json config = config_for(fake, "");
  config["api_key_ref"] = {{"source", "env"}, {"value", "AGENTRT_TEST_NO_SUCH_VARIABLE"}};
  auto keyless = provider(config);
  EXPECT_NE(keyless->start(user_request("hi"), sink, &error), AGENTRT_OK);
  EXPECT_NE(std::string(error.message).find("api_key_ref"), std::string::npos) << error.message;

  EXPECT_FALSE(sink.wait_done(100ms));
  EXPECT_EQ(fake.request_count(), 0u);
}

AGENTRT_ALL_VENDORS(AsyncCall);

}  // namespace
}  // namespace agentrt::test
