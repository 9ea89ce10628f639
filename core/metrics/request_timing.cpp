#include "core/metrics/request_timing.h"

namespace agentrt::core::metrics {

thread_local RequestUpstream* RequestUpstream::current_ = nullptr;

Clock::duration UpstreamSpan::end() {
  if (!timing()) return {};
  const Clock::duration took = Clock::now() - began_;
  began_ = Clock::time_point{};
  if (RequestUpstream* request = RequestUpstream::current_) {
    request->time_ += took;
    request->called_ = true;
  }
  return took;
}

ProviderCallTimer::~ProviderCallTimer() {
  if (!span_.timing()) return;
  const Clock::time_point began = span_.began();
  const Clock::duration took = span_.end();
  std::optional<Clock::duration> first_delta;
  if (first_ != Clock::time_point{}) first_delta = first_ - began;
  if (Metrics* metrics = active()) metrics->provider_called(provider_, model_, took, first_delta);
}

}  // namespace agentrt::core::metrics
