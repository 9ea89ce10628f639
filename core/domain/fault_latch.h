// Whether a store can serve, as GET /health reports it. A failed call trips the latch;
// only a probe that writes clears it, since a read that succeeds proves nothing about a
// full disk, and a store's failing writes may stop coming once a balancer has taken
// the instance out of rotation: /health runs the probe itself. At most one probe a
// second, whoever polls, so that /health cannot add load to a store that struggles.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace agentrt::core {

class FaultLatch {
 public:
  void trip() { trips_.fetch_add(1, std::memory_order_acq_rel); }
  bool tripped() const;
  // For a store without a probe: a call that began when trips() was `before` succeeded,
  // which clears the trips up to then.
  uint64_t trips() const { return trips_.load(std::memory_order_acquire); }
  void passed(uint64_t before);

  // True when not tripped. Otherwise runs `probe` (true: the store took a write) unless
  // one ran within `interval`, and clears the latch when it succeeds; a trip that came
  // while it ran stands.
  bool usable(const std::function<bool()>& probe,
              std::chrono::milliseconds interval = std::chrono::seconds(1));

 private:
  std::atomic<uint64_t> trips_{0};
  std::atomic<uint64_t> cleared_{0};  // trips_ as it was when a probe that passed began
  std::mutex probing_;
  bool probed_ = false;
  std::chrono::steady_clock::time_point last_probe_{};
};

}  // namespace agentrt::core
