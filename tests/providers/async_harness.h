// Drives a provider plugin's C table directly, complete_async (ABI 1.2) beside the
// blocking complete, with a hand-made sink, so the plugin's transfer loops are tested
// without the host's ProviderInstance in between.
#pragma once

#include "tests/providers/harness.h"

#include <agentrt/agentrt_plugin.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::test {

// A sink that records everything the plugin does with it. Every member is
// thread-safe; wake() holds the lock while it calls the plugin's waker, so that once
// the plugin unregisters, the waker is not running, as the ABI promises.
class TestSink {
 public:
  TestSink();
  TestSink(const TestSink&) = delete;
  TestSink& operator=(const TestSink&) = delete;

  agentrt_sink_t* raw() { return &raw_; }

  // Test side.
  void set_accepts_waker(bool accepts);  // before the call: false = "cannot wake"
  void refuse_text_after(size_t texts);  // emit of a text beyond `texts` returns "stop"
  void cancel(bool wake = true);
  bool has_waker() const;
  bool wait_done(std::chrono::milliseconds timeout) const;
  bool wait_texts(size_t count, std::chrono::milliseconds timeout) const;

  // What happened; read once done.
  int done_count() const;
  int32_t status() const;
  agentrt_error_t error() const;
  std::string text() const;
  std::vector<std::string> texts() const;
  std::vector<uint32_t> kinds() const;
  std::vector<std::string> datas() const;  // every delta's data, in order
  // Threads that called into the sink, and whether anything came after done.
  std::set<std::thread::id> threads() const;
  bool touched_after_done() const;

 private:
  static int32_t emit(agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len);
  static int32_t is_cancelled(const agentrt_sink_t* sink);
  static int32_t set_waker(agentrt_sink_t* sink, void (*wake)(void*), void* ctx);
  static void done(agentrt_sink_t* sink, int32_t status, const agentrt_error_t* error);
  void note_call();  // under mutex_

  agentrt_sink_t raw_{};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool accepts_waker_ = true;
  size_t refuse_after_ = SIZE_MAX;
  bool cancelled_ = false;
  void (*wake_)(void*) = nullptr;
  void* wake_ctx_ = nullptr;
  std::vector<uint32_t> kinds_;
  std::vector<std::string> datas_;
  int done_count_ = 0;
  int32_t status_ = -1;
  agentrt_error_t error_{};
  std::set<std::thread::id> threads_;
  bool touched_after_done_ = false;
};

// One instance made straight from the plugin's table.
class RawProvider {
 public:
  RawProvider(Vendor vendor, const nlohmann::json& config);
  ~RawProvider() { destroy(); }
  RawProvider(const RawProvider&) = delete;
  RawProvider& operator=(const RawProvider&) = delete;

  // complete_async; returns its status, `error` filled when it is not AGENTRT_OK.
  int32_t start(const nlohmann::json& request, TestSink& sink, agentrt_error_t* error = nullptr);
  // The blocking complete, on this thread, into `sink` (whose done is then not used).
  int32_t complete(const nlohmann::json& request, TestSink& sink, agentrt_error_t* error);
  void destroy();

 private:
  std::shared_ptr<const core::LoadedPlugin> plugin_;
  void* instance_ = nullptr;
};

// How many transfer loops an instance runs (the plugin's rule).
size_t expected_loops();

// Every async test runs against each vendor: a fake of it, and providers made on it.
class AsyncTest : public ::testing::TestWithParam<Vendor> {
 protected:
  AsyncTest() : fake(GetParam()) {}
  Vendor vendor() const { return GetParam(); }
  std::unique_ptr<RawProvider> provider(const nlohmann::json& config) {
    return std::make_unique<RawProvider>(vendor(), config);
  }
  // Starts `request` and waits for its end; returns how long that took. A call that
  // does not start or never ends fails the test.
  std::chrono::steady_clock::duration run_async(RawProvider& p, const nlohmann::json& request,
                                                TestSink& sink);

  FakeUpstream fake;
};

}  // namespace agentrt::test
