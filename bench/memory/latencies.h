// Latency samples in microseconds and the percentiles the report quotes.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace agentrt::bench {

class Latencies {
 public:
  void add(std::chrono::steady_clock::duration d) {
    samples_.push_back(std::chrono::duration<double, std::micro>(d).count());
  }
  size_t size() const { return samples_.size(); }
  // Nearest-rank percentile, p in [0, 100]; 0 when there are no samples.
  double percentile(double p) const;
  double mean() const;
  void merge(const Latencies& other);

 private:
  std::vector<double> samples_;
};

// "0.123 ms" with three decimals.
std::string ms(double microseconds);

}  // namespace agentrt::bench
