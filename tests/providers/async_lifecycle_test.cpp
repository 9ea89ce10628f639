// The life of a complete_async call on the plugin's transfer loops, for every vendor:
// cancellation through the waker (and by polling when the host cannot wake),
// timeouts, refused connections, destroying an instance with calls in flight, and
// connections kept warm between calls.
#include "tests/providers/async_harness.h"
#include "tests/providers/black_hole.h"

#include <time.h>

#include <chrono>
#include <memory>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

class AsyncLifecycle : public AsyncTest {
 protected:
  // Starts a call on an upstream that sends one text and then nothing.
  void start_silent(RawProvider& p, TestSink& sink) {
    Reply reply = Reply::hang_after_headers(1);
    reply.text = "first then nothing";
    fake.enqueue(reply);
    ASSERT_EQ(p.start(user_request("hi"), sink), AGENTRT_OK);
    ASSERT_TRUE(sink.wait_texts(1, 5s));
  }
  // Cancels `sink` (waking it when `wake`) and returns how long the call took to end.
  static Clock::duration cancel(TestSink& sink, bool wake) {
    auto at = Clock::now();
    sink.cancel(wake);
    EXPECT_TRUE(sink.wait_done(5s));
    return Clock::now() - at;
  }
};

long ms(Clock::duration d) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

TEST_P(AsyncLifecycle, ACancelThroughTheWakerEndsASilentCallAtOnce) {
  auto p = provider(config_for(fake));
  TestSink sink;
  start_silent(*p, sink);
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(sink.has_waker());
  Clock::duration took = cancel(sink, true);
  EXPECT_LT(took, 100ms) << ms(took);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_CANCELLED);
  EXPECT_STREQ(sink.error().message, "cancelled");
  EXPECT_EQ(sink.texts().size(), 1u);
  EXPECT_FALSE(sink.has_waker()) << "the waker was not unregistered before done";
  EXPECT_TRUE(fake.wait_for_client_abort(1s)) << "the fake never saw the connection close";
  EXPECT_EQ(sink.done_count(), 1);
  EXPECT_FALSE(sink.touched_after_done());
}

// Registered but never woken, the call notices only at its periodic check (a quarter
// of the 5 s stall limit, at most a second): proof that it waits instead of polling.
TEST_P(AsyncLifecycle, WithAWakerIdleCallsAreCheckedRarely) {
  auto p = provider(config_for(fake));
  TestSink sink;
  start_silent(*p, sink);
  std::this_thread::sleep_for(100ms);
  Clock::duration took = cancel(sink, false);
  EXPECT_GT(took, 150ms) << ms(took);
  EXPECT_LT(took, 1500ms) << ms(took);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_CANCELLED);
}

TEST_P(AsyncLifecycle, AHostThatCannotWakeIsPolled) {
  auto p = provider(config_for(fake));
  TestSink sink;
  sink.set_accepts_waker(false);
  start_silent(*p, sink);
  std::this_thread::sleep_for(200ms);
  Clock::duration took = cancel(sink, false);
  EXPECT_LT(took, 100ms) << ms(took);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_CANCELLED);
  EXPECT_TRUE(fake.wait_for_client_abort(1s));
}

TEST_P(AsyncLifecycle, ACancelBeforeTheCallStartsEndsItWithoutASend) {
  fake.enqueue(Reply::hang_before_headers());
  auto p = provider(config_for(fake));
  TestSink sink;
  sink.cancel(false);
  ASSERT_EQ(p->start(user_request("hi"), sink), AGENTRT_OK);
  ASSERT_TRUE(sink.wait_done(1s));
  EXPECT_EQ(sink.status(), AGENTRT_ERR_CANCELLED);
  EXPECT_EQ(sink.done_count(), 1);
}

TEST_P(AsyncLifecycle, SilenceLongerThanTheStallTimeoutIsTimeout) {
  fake.enqueue(Reply::hang_after_headers());
  json config = config_for(fake);
  config["stall_timeout_ms"] = 300;
  auto p = provider(config);
  TestSink sink;
  Clock::duration took = run_async(*p, user_request("hi"), sink);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_TIMEOUT) << sink.error().message;
  EXPECT_STREQ(sink.error().message, "upstream sent nothing for 300 ms");
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 1000ms) << ms(took);
  EXPECT_TRUE(fake.wait_for_client_abort(2s));
}

TEST_P(AsyncLifecycle, AClosedPortIsUnavailable) {
  json config = config_for(fake);
  config["base_url"] = "http://127.0.0.1:" + std::to_string(unused_local_port());
  auto p = provider(config);
  TestSink sink;
  run_async(*p, user_request("hi"), sink);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_UNAVAILABLE) << sink.error().message;
  EXPECT_EQ(sink.error().http_status, 0);
  EXPECT_NE(std::string(sink.error().message).find("cannot connect"), std::string::npos);
}

TEST_P(AsyncLifecycle, AConnectTimeoutIsTimeout) {
  BlackHole hole;
  json config = config_for(fake);
  config["base_url"] = "http://127.0.0.1:" + std::to_string(hole.port());
  config["connect_timeout_ms"] = 200;
  auto p = provider(config);
  TestSink sink;
  Clock::duration took = run_async(*p, user_request("hi"), sink);
  EXPECT_EQ(sink.status(), AGENTRT_ERR_TIMEOUT) << sink.error().message;
  EXPECT_NE(std::string(sink.error().message).find("connect"), std::string::npos);
  EXPECT_GE(took, 190ms);
  EXPECT_LT(took, 1000ms) << ms(took);
}

TEST_P(AsyncLifecycle, DestroyingTheInstanceEndsEveryCallInFlightOnce) {
  fake.set_default(Reply::hang_after_headers(1));
  auto p = provider(config_for(fake));
  constexpr int kCalls = 8;
  std::vector<std::unique_ptr<TestSink>> sinks;
  for (int i = 0; i <= kCalls; ++i) sinks.push_back(std::make_unique<TestSink>());
  for (int i = 0; i < kCalls; ++i) ASSERT_EQ(p->start(user_request("hi"), *sinks[i]), AGENTRT_OK);
  for (int i = 0; i < kCalls; ++i) ASSERT_TRUE(sinks[i]->wait_texts(1, 5s));
  // One more that may not even have reached its loop yet.
  ASSERT_EQ(p->start(user_request("hi"), *sinks.back()), AGENTRT_OK);

  p->destroy();  // returns only once every call has ended
  for (auto& sink : sinks) {
    EXPECT_EQ(sink->done_count(), 1);
    EXPECT_EQ(sink->status(), AGENTRT_ERR_CANCELLED) << sink->error().message;
    EXPECT_FALSE(sink->has_waker());
    EXPECT_FALSE(sink->touched_after_done());
  }
  EXPECT_TRUE(fake.wait_for_client_abort(2s, kCalls));
}

TEST_P(AsyncLifecycle, ConnectionsStayWarmBetweenCalls) {
  auto p = provider(config_for(fake));
  constexpr int kCalls = 12;
  for (int i = 0; i < kCalls; ++i) {
    TestSink sink;
    run_async(*p, user_request("hi"), sink);
    ASSERT_EQ(sink.status(), AGENTRT_OK) << sink.error().message;
  }
  // One call at a time lands on the same (idle) loop and reuses its connection.
  EXPECT_EQ(fake.request_count(), static_cast<size_t>(kCalls));
  EXPECT_EQ(fake.connections_accepted(), 1u);
}

TEST_P(AsyncLifecycle, TheNextCallAfterACancelWorks) {
  auto p = provider(config_for(fake));
  TestSink cancelled;
  start_silent(*p, cancelled);
  cancel(cancelled, true);
  for (int i = 0; i < 2; ++i) {  // on the connection the cancel closed, then a warm one
    TestSink sink;
    run_async(*p, user_request("hi"), sink);
    EXPECT_EQ(sink.status(), AGENTRT_OK) << sink.error().message;
    EXPECT_EQ(sink.text(), "Hello, world!");
  }
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// A warm connection the upstream then closes must not leave its socket in the loop's
// epoll set, where a hang-up would wake the loop over and over.
TEST_P(AsyncLifecycle, AnUpstreamClosingAnIdleConnectionCostsNothing) {
  auto upstream = std::make_unique<FakeUpstream>(vendor());
  auto p = provider(config_for(*upstream));
  TestSink sink;
  run_async(*p, user_request("hi"), sink);
  ASSERT_EQ(sink.status(), AGENTRT_OK) << sink.error().message;
  upstream.reset();  // closes the connection the loop keeps warm
  double before = cpu_seconds();
  std::this_thread::sleep_for(300ms);
  EXPECT_LT(cpu_seconds() - before, 0.05);
}

AGENTRT_ALL_VENDORS(AsyncLifecycle);

}  // namespace
}  // namespace agentrt::test
