#include "latencies.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace agentrt::bench {

double Latencies::percentile(double p) const {
  if (samples_.empty()) return 0;
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double Latencies::mean() const {
  if (samples_.empty()) return 0;
  return std::accumulate(samples_.begin(), samples_.end(), 0.0) /
         static_cast<double>(samples_.size());
}

void Latencies::merge(const Latencies& other) {
  samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
}

std::string ms(double microseconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", microseconds / 1000.0);
  return buf;
}

}  // namespace agentrt::bench
