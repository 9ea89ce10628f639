// The host's side of ABI 1.2 complete_async: the call runs on the plugin's thread
// while the caller waits for its end; errors, cancellation through the waker, a
// declining instance and the blocking-only switch all behave as the blocking path.
#include "core/plugin_host/plugin_host.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Result {
  std::string text;
  std::vector<uint32_t> kinds;
  std::optional<PluginError> error;
};

std::string async_request(const std::string& what) {
  return test::one_message_request("async", what);
}

class AsyncProvider : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginStatus status = host.load(test::fixture("async-fixture"));
    ASSERT_TRUE(status.loaded) << status.error;
    EXPECT_EQ(status.abi, AGENTRT_ABI_VERSION_STRING);
    provider = std::make_unique<ProviderInstance>(host.find("async-fixture"), "{}");
  }

  Result run(
      const std::string& what, const std::function<bool()>& cancelled = [] { return false; },
      CancelWaker* waker = nullptr, size_t stop_after = 1000) {
    Result r;
    try {
      provider->complete(
          async_request(what),
          [&](const ProviderDelta& d) {
            r.kinds.push_back(d.kind);
            if (d.kind == AGENTRT_DELTA_TEXT) r.text.append(d.data);
            return r.kinds.size() < stop_after;
          },
          cancelled, waker);
    } catch (const PluginError& e) {
      r.error = e;
    }
    return r;
  }

  PluginHost host;
  std::unique_ptr<ProviderInstance> provider;
};

std::string this_thread_id() {
  std::ostringstream id;
  id << std::this_thread::get_id();
  return id.str();
}

TEST_F(AsyncProvider, RunsOnThePluginsThreadAndReturnsAfterItsEnd) {
  EXPECT_TRUE(provider->runs_async());
  Result r = run("hello");
  ASSERT_FALSE(r.error) << r.error->what();
  ASSERT_EQ(r.text.rfind("async ", 0), 0u) << r.text;
  EXPECT_NE(r.text.substr(6), this_thread_id()) << "the deltas came from the caller's thread";
  EXPECT_EQ(r.kinds, (std::vector<uint32_t>{AGENTRT_DELTA_TEXT, AGENTRT_DELTA_TEXT,
                                            AGENTRT_DELTA_USAGE, AGENTRT_DELTA_FINISH}));
}

TEST_F(AsyncProvider, AFailureKeepsCodeStatusAndRetryDelay) {
  Result r = run("fail");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(r.error->http_status, 503);
  EXPECT_EQ(r.error->retry_after_ms, 1500u);
  EXPECT_STREQ(r.error->what(), "overloaded");
}

TEST_F(AsyncProvider, ARefusedDeltaEndsTheCallCancelled) {
  Result r = run(
      "stop", [] { return false; }, nullptr, 3);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_EQ(r.kinds.size(), 3u);
}

TEST_F(AsyncProvider, TheWakerEndsAWaitingCallAtOnce) {
  CancelWaker waker;
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    cancel = true;
    waker.wake();
  });
  const auto started = Clock::now();
  Result r = run(
      "wait", [&] { return cancel.load(); }, &waker);
  const auto took = Clock::now() - started;
  canceller.join();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, AGENTRT_ERR_CANCELLED);
  EXPECT_LT(took, 600ms) << "ended by the plugin's once-a-second check, not by the wake";
  waker.wake();  // unregistered when the call ended: nothing may be called now
}

TEST_F(AsyncProvider, ADecliningInstanceRunsTheBlockingCall) {
  Result r = run("decline");
  ASSERT_FALSE(r.error) << r.error->what();
  EXPECT_EQ(r.text, "sync");
  EXPECT_FALSE(provider->runs_async()) << "asked once, not at every call";
  EXPECT_EQ(run("hello").text, "sync");
}

TEST_F(AsyncProvider, BlockingOnlyNeverStartsAnAsyncCall) {
  provider->set_blocking_only(true);
  EXPECT_FALSE(provider->runs_async());
  EXPECT_EQ(run("hello").text, "sync");
}

// `meanwhile` (a stream's start, stored) runs once a call is under way, on either path,
// and never for a call the plugin refused before touching its sink: the engine then
// refuses the request and stores nothing (AGENTRT_ERR_REFUSED). On the async path it
// runs on the caller's thread while the plugin's thread emits, so only the blocking
// path promises it comes before the first delta (the engine holds the deltas until the
// start is stored, whichever comes first).
TEST_F(AsyncProvider, MeanwhileRunsOnceACallIsUnderWayAndNeverForARefusedOne) {
  for (const bool blocking : {false, true}) {
    provider->set_blocking_only(blocking);
    for (const std::string what : {"hello", "refuse-request"}) {
      int meanwhile_runs = 0;
      std::atomic<size_t> delivered{0};
      size_t delivered_before = 99;
      std::string meanwhile_thread;
      const std::function<void()> meanwhile = [&] {
        ++meanwhile_runs;
        delivered_before = delivered.load();
        meanwhile_thread = this_thread_id();
      };
      std::optional<PluginError> error;
      try {
        provider->complete(
            async_request(what),
            [&](const ProviderDelta&) {
              ++delivered;
              return true;
            },
            [] { return false; }, nullptr, CallThread::plugin, &meanwhile);
      } catch (const PluginError& e) {
        error = e;
      }
      const std::string where = what + (blocking ? ", blocking" : ", async");
      if (what == "hello") {
        EXPECT_FALSE(error) << where;
        EXPECT_EQ(meanwhile_runs, 1) << where;
        EXPECT_EQ(meanwhile_thread, this_thread_id()) << where << ": on the caller's thread";
        if (blocking) {
          EXPECT_EQ(delivered_before, 0u) << where << ": before the first delta is handed on";
        }
      } else {
        ASSERT_TRUE(error) << where;
        EXPECT_EQ(error->code, AGENTRT_ERR_REFUSED) << where;
        EXPECT_EQ(meanwhile_runs, 0) << where;
      }
    }
  }
}

TEST_F(AsyncProvider, ManyCallersAtOnceEachGetTheirOwnEnd) {
  std::vector<std::thread> callers;
  std::atomic<int> ok{0}, failed{0};
  for (int i = 0; i < 32; ++i)
    callers.emplace_back([&, i] {
      Result r = run(i % 2 ? "fail" : "hello");
      (r.error ? failed : ok)++;
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(ok, 16);
  EXPECT_EQ(failed, 16);
}

}  // namespace
}  // namespace agentrt::core
