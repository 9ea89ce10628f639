// A run's place in its limits, from its admission (Limits::admit_run) to its end: it
// counts among its actor's runs under way until end() or its destruction, and its
// tokens go to its cell's count of the day its admission was on.
#pragma once

#include "core/limits/rate_limiter.h"

#include <cstdint>
#include <string>

namespace agentrt::core::limits {

class RunAdmission {
 public:
  // Counts nothing: a run made where no limits are kept (tests, a guest engine).
  RunAdmission() = default;
  // `run_key`: the actor's key among runs under way, "" when the run is not counted
  // there (an engine admin's).
  RunAdmission(RateLimiter& limiter, std::string cell, std::string run_key, int64_t day)
      : limiter_(&limiter), cell_(std::move(cell)), run_key_(std::move(run_key)), day_(day) {}
  ~RunAdmission() { end(); }
  RunAdmission(RunAdmission&& other) noexcept { *this = std::move(other); }
  RunAdmission& operator=(RunAdmission&& other) noexcept;
  RunAdmission(const RunAdmission&) = delete;
  RunAdmission& operator=(const RunAdmission&) = delete;

  // The run's tokens (input and output, every step), once it knows them.
  void count_tokens(int64_t tokens);
  // The run is over: its actor may start another. Once; later calls do nothing.
  void end();

 private:
  RateLimiter* limiter_ = nullptr;
  std::string cell_, run_key_;
  int64_t day_ = 0;
};

}  // namespace agentrt::core::limits
