#include "core/openai/background_runs.h"

namespace agentrt::core::openai {

BackgroundRuns::~BackgroundRuns() {
  std::list<Running> running;
  {
    std::lock_guard lock(mutex_);
    running.swap(running_);
  }
  for (Running& run : running) run.call->run().live->cancel();
  for (Running& run : running) run.thread.join();
}

void BackgroundRuns::reap() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (!it->done->load()) {
      ++it;
      continue;
    }
    it->thread.join();
    it = running_.erase(it);
  }
}

void BackgroundRuns::start(std::shared_ptr<ResponseCall> call) {
  std::lock_guard lock(mutex_);
  reap();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([call, done] {
    // A failed run is stored as failed; nobody is waiting for the exception.
    try {
      call->run_unattended();
    } catch (const std::exception&) {
    }
    done->store(true);
  });
  running_.push_back({std::move(call), std::move(thread), std::move(done)});
}

}  // namespace agentrt::core::openai
