// CPU of writing one stream_delta event's text (DeltaText, core/runs/event_text.h), the
// event every upstream text delta becomes, for contents of different kinds.
//
//   event_text_bench [--calls N]    (default 2,000,000 per content, 3 runs, the best kept)
#include "core/runs/event_text.h"

#include <ctime>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace {

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  long calls = 2'000'000;
  if (argc == 3 && std::strcmp(argv[1], "--calls") == 0) calls = std::atol(argv[2]);
  const std::pair<const char*, std::string> contents[] = {
      {"4 ASCII bytes", "w12 "},
      {"120 ASCII bytes", std::string(120, 'a')},
      {"60 bytes, escapes", "line one\n\"quoted\" and a \\ back\tslash and more text here"},
      {"60 bytes, UTF-8",
       "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 na\xc3\xafve "
       "r\xc3\xa9sum\xc3\xa9 \xe2\x80\x9cquote\xe2\x80\x9d"}};
  agentrt::core::DeltaText delta_text;
  size_t written = 0;
  std::printf("| content | ns per event (best of 3) |\n|---|---:|\n");
  for (const auto& [name, content] : contents) {
    double best = 1e18;
    for (int run = 0; run < 3; ++run) {
      const double t0 = thread_cpu_ns();
      for (long i = 0; i < calls; ++i) written += delta_text(content, i).size();
      best = std::min(best, (thread_cpu_ns() - t0) / static_cast<double>(calls));
    }
    std::printf("| %s | %.0f |\n", name, best);
  }
  return written == 0;
}
