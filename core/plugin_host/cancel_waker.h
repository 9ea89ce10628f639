// What lets the host wake a provider call that waits on its upstream (ABI 1.1
// set_waker): the plugin registers a function, the host calls it when the call's
// cancelled flag may have changed. Registration and waking share one mutex, so once
// a plugin has unregistered, its function is neither running nor called again.
#pragma once

#include <mutex>

namespace agentrt::core {

class CancelWaker {
 public:
  using WakeFn = void (*)(void* ctx);

  void set(WakeFn wake, void* ctx) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_ = wake;
    ctx_ = ctx;
  }
  void wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (wake_) wake_(ctx_);
  }

 private:
  std::mutex mutex_;
  WakeFn wake_ = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace agentrt::core
