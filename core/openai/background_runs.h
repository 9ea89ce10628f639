// The responses asked for with background: true (docs/openai-compatible.md), each run
// on a thread of its own once its request has been answered. Destroying the registry
// (agentd's shutdown) interrupts those still running and waits for their threads, so
// that no run outlives the service it uses.
#pragma once

#include "core/openai/responses.h"

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace agentrt::core::openai {

class BackgroundRuns {
 public:
  BackgroundRuns() = default;
  BackgroundRuns(const BackgroundRuns&) = delete;
  BackgroundRuns& operator=(const BackgroundRuns&) = delete;
  ~BackgroundRuns();

  // Runs `call` to its end on a new thread.
  void start(std::shared_ptr<ResponseCall> call);

 private:
  struct Running {
    std::shared_ptr<ResponseCall> call;
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap();  // joins the threads whose runs have ended; holds mutex_

  std::mutex mutex_;
  std::list<Running> running_;
};

}  // namespace agentrt::core::openai
