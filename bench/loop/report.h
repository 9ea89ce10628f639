// bench/loop's figures as markdown: a table per concurrency.
#pragma once

#include "scenarios.h"

#include <string>
#include <vector>

namespace loop_bench {

struct Pass {
  int concurrency = 1;
  int rounds = 1;
  std::vector<Scenario> scenarios;
  std::vector<std::vector<double>> round_gap_p50_us;  // [scenario][round]
};

// Nearest rank; NaN for no samples.
double percentile(std::vector<double> samples, double p);

void print_report(const Pass& pass, long clock_ticks_per_s);

}  // namespace loop_bench
