// What the provider benchmarks share: a sink that counts deltas, and CPU time a call.
#pragma once

#include <agentrt/plugin.hpp>

#include <time.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace agentrt::bench {

// Counts what a decoder emits; keeps the text only when asked to check it.
struct CountingSink {
  agentrt_sink_t c{};
  size_t text_bytes = 0, usages = 0, finishes = 0;
  bool keep = false;
  std::vector<std::string> texts;

  CountingSink() {
    c.struct_size = sizeof c;
    c.ctx = this;
    c.emit = [](agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) -> int32_t {
      auto* self = static_cast<CountingSink*>(sink->ctx);
      if (kind == AGENTRT_DELTA_TEXT) {
        self->text_bytes += len;
        if (self->keep) self->texts.emplace_back(data, len);
      } else if (kind == AGENTRT_DELTA_USAGE) {
        ++self->usages;
      } else if (kind == AGENTRT_DELTA_FINISH) {
        ++self->finishes;
      }
      return 0;
    };
    c.is_cancelled = [](const agentrt_sink_t*) -> int32_t { return 0; };
  }
};

// This thread's CPU time in ns: the machine is shared, and time spent descheduled is
// not the code's.
inline double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct CpuFigure {
  double median = 0, best = 0;  // CPU ns a call over the runs
};

// `warm_up` calls of `fn`, then `reps` runs of about `seconds` of this thread's CPU each,
// calling it `batch` times between two readings of the clock.
inline CpuFigure cpu_ns_per_call(const std::function<void()>& fn, double seconds, int reps,
                                 int warm_up = 20, int batch = 10) {
  for (int i = 0; i < warm_up; ++i) fn();
  std::vector<double> runs;
  for (int r = 0; r < reps; ++r) {
    size_t calls = 0;
    const double start = cpu_ns();
    double now = start;
    while (now - start < seconds * 1e9) {
      for (int i = 0; i < batch; ++i) fn();
      calls += static_cast<size_t>(batch);
      now = cpu_ns();
    }
    runs.push_back((now - start) / static_cast<double>(calls));
  }
  std::sort(runs.begin(), runs.end());
  return {runs[runs.size() / 2], runs.front()};
}

}  // namespace agentrt::bench
