// What the provider benchmarks share: a sink that counts deltas, and CPU time.
#pragma once

#include <agentrt/plugin.hpp>

#include <time.h>

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

}  // namespace agentrt::bench
