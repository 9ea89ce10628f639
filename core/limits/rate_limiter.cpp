#include "core/limits/rate_limiter.h"

namespace agentrt::core::limits {

namespace {

class SystemLimitClock : public LimitClock {
 public:
  int64_t steady_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t unix_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const LimitClock& real_clock() {
  static const SystemLimitClock clock{};
  return clock;
}

}  // namespace agentrt::core::limits
