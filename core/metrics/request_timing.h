// Which part of a request's time was the upstream's: the request pipeline holds a
// RequestUpstream for each request on the thread that serves it, and the waits for an
// upstream on that thread (a provider call, a step's tool-server calls) add their time
// to it, so that agentrt_overhead_seconds is the request's time less theirs. The run of
// a /run or /chat waits for its provider call on the request's thread, also while the
// call itself runs on the provider's threads, so nothing crosses threads here.
#pragma once

#include "core/metrics/metrics.h"

#include <optional>
#include <string_view>

namespace agentrt::core::metrics {

class RequestUpstream {
 public:
  RequestUpstream() : previous_(current_) { current_ = this; }
  ~RequestUpstream() { current_ = previous_; }
  RequestUpstream(const RequestUpstream&) = delete;
  RequestUpstream& operator=(const RequestUpstream&) = delete;

  // The time spent waiting for upstreams, when the request called any.
  std::optional<Clock::duration> time() const {
    return called_ ? std::optional<Clock::duration>(time_) : std::nullopt;
  }

 private:
  friend class UpstreamSpan;
  static thread_local RequestUpstream* current_;
  RequestUpstream* previous_;
  Clock::duration time_{};
  bool called_ = false;
};

// Times one wait for an upstream, from construction to destruction, into the request
// the calling thread serves. Nothing (no clock read) when metrics are off or `timed` is
// false.
class UpstreamSpan {
 public:
  explicit UpstreamSpan(bool timed = true)
      : began_(timed && active() != nullptr ? Clock::now() : Clock::time_point{}) {}
  ~UpstreamSpan() { end(); }
  UpstreamSpan(const UpstreamSpan&) = delete;
  UpstreamSpan& operator=(const UpstreamSpan&) = delete;

  bool timing() const { return began_ != Clock::time_point{}; }
  Clock::time_point began() const { return began_; }
  // Ends the span now (once); the time it covered.
  Clock::duration end();

 private:
  Clock::time_point began_;
};

// One provider call of a run, for agentrt_provider_call_duration_seconds and
// agentrt_provider_ttft_seconds; an upstream wait of its request too. `provider` and
// `model` must outlive it.
class ProviderCallTimer {
 public:
  ProviderCallTimer(std::string_view provider, std::string_view model)
      : provider_(provider), model_(model) {}
  ~ProviderCallTimer();
  ProviderCallTimer(const ProviderCallTimer&) = delete;
  ProviderCallTimer& operator=(const ProviderCallTimer&) = delete;

  // At each delta of the answer (text or a tool call), from whichever thread delivers
  // it: one at a time, and before the call returns.
  void answered() {
    if (span_.timing() && first_ == Clock::time_point{}) first_ = Clock::now();
  }

 private:
  std::string_view provider_, model_;
  UpstreamSpan span_;
  Clock::time_point first_{};
};

}  // namespace agentrt::core::metrics
