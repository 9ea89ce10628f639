#include "core/domain/fault_latch.h"

namespace agentrt::core {

bool FaultLatch::tripped() const {
  return trips_.load(std::memory_order_acquire) != cleared_.load(std::memory_order_acquire);
}

void FaultLatch::passed(uint64_t before) {
  uint64_t cleared = cleared_.load(std::memory_order_acquire);
  while (cleared < before && !cleared_.compare_exchange_weak(cleared, before)) {
  }
}

bool FaultLatch::usable(const std::function<bool()>& probe, std::chrono::milliseconds interval) {
  if (!tripped()) return true;
  std::lock_guard<std::mutex> lock(probing_);
  const auto now = std::chrono::steady_clock::now();
  const bool probed_lately = probed_ && now - last_probe_ < interval;
  if (!probed_lately && tripped()) {
    const uint64_t before = trips_.load(std::memory_order_acquire);
    probed_ = true;
    last_probe_ = now;
    if (probe()) passed(before);
  }
  return !tripped();
}

}  // namespace agentrt::core
