// One thread that drives many AsyncCalls at once: an epoll set holding libcurl's
// sockets and an eventfd for commands, and one libcurl multi handle driven with
// curl_multi_socket_action. A thread per call costs a sleep and a wake-up per streamed
// delta; here one wake-up serves every delta that arrived together. The multi handle
// is the loop's own, so its connection cache keeps upstream connections warm between
// the loop's calls and no other thread ever touches it.
//
// Ownership: the loop owns every call it was given until the call's sink is ended.
// Other threads reach a call only through its numeric id (wake), which the loop looks
// up among the calls still alive; a stale id finds nothing.
#pragma once

#include "common/async_call.h"

#include <curl/curl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentrt::providers {

class TransferLoop {
 public:
  // Starts the thread; throws sdk::Error(INTERNAL) when the OS or libcurl refuse.
  TransferLoop();
  // Ends every call still in flight with CANCELLED, each exactly once, and joins the
  // thread.
  ~TransferLoop();
  TransferLoop(const TransferLoop&) = delete;
  TransferLoop& operator=(const TransferLoop&) = delete;

  // Any thread: hands `call` to the loop. Throws sdk::Error(UNAVAILABLE) once the
  // loop is shutting down (the call is then destroyed without touching its sink).
  void submit(std::unique_ptr<AsyncCall> call);
  // Any thread (the host's waker): call `id` may have been cancelled.
  void wake(uint64_t id);
  // Calls submitted and not yet ended; a call counts no more by the time its sink
  // hears the end, so a caller that starts its next call then sees this loop idle.
  size_t load() const { return load_.load(std::memory_order_relaxed); }

 private:
  struct Due {
    Clock::time_point when;
    uint64_t id;
    bool operator>(const Due& other) const { return when > other.when; }
  };
  // What other threads hand the loop, under mutex_.
  struct Inbox {
    std::vector<std::pair<uint64_t, std::unique_ptr<AsyncCall>>> starts;
    std::vector<uint64_t> wakes;
    bool stopping = false;
  };

  static int on_socket(CURL* easy, curl_socket_t s, int what, void* loop, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* loop);

  void run();
  void iterate();
  int wait_ms() const;
  bool take_inbox();
  void adopt(uint64_t id, std::unique_ptr<AsyncCall> call);
  void socket_action(curl_socket_t s, int flags);
  void flush_texts();
  void reap_finished();
  void run_checks();
  void schedule(uint64_t id, Clock::time_point when);
  void finish(uint64_t id);
  void end_all();
  std::unique_ptr<EasyHandle> acquire_easy();
  void release_easy(std::unique_ptr<EasyHandle> handle);
  void signal();

  int epoll_fd_ = -1;
  int event_fd_ = -1;
  CURLM* multi_ = nullptr;

  // Loop thread only.
  std::unordered_map<uint64_t, std::unique_ptr<AsyncCall>> calls_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::vector<uint64_t> unflushed_;  // calls whose text of this pass waits for flush_texts
  std::optional<Clock::time_point> curl_deadline_;
  std::vector<std::unique_ptr<EasyHandle>> spare_easy_;  // between calls, set up for the next
  bool stopping_ = false;

  std::mutex mutex_;
  Inbox inbox_;
  bool signalled_ = false;  // the eventfd was written since the loop last read it
  uint64_t next_id_ = 1;
  std::atomic<size_t> load_{0};

  std::thread thread_;
};

}  // namespace agentrt::providers
