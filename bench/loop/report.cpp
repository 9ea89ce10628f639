#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loop_bench {
namespace {

// Milliseconds, three decimals; a dash for nothing measured.
std::string ms(double us) {
  if (std::isnan(us)) return "–";
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", us / 1000);
  return out;
}

std::string pair_ms(double p50, double p99) {
  if (std::isnan(p50)) return "–";
  return ms(p50) + " / " + ms(p99);
}

const Scenario* find(const Pass& pass, Kind kind) {
  for (const Scenario& s : pass.scenarios)
    if (s.kind == kind) return &s;
  return nullptr;
}

bool is_direct_tool(const Scenario& s) {
  return s.kind == Kind::tool_http || s.kind == Kind::tool_http_fresh || s.kind == Kind::tool_stdio;
}

}  // namespace

double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return NAN;
  std::sort(samples.begin(), samples.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * double(samples.size())));
  return samples[std::min(samples.size(), std::max<size_t>(rank, 1)) - 1];
}

void print_report(const Pass& pass, long ticks_per_s) {
  std::printf("### Concurrency %d\n\n", pass.concurrency);
  std::printf(
      "| path | runs | loop gap p50 / p99 | the tool alone p50 / p99 | gap − tool p50 / p99 |"
      " agentd CPU a step | a run p50 / p99 | errors |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Scenario& s : pass.scenarios) {
    if (is_direct_tool(s)) continue;
    const double gap50 = percentile(s.gaps_us, 50), gap99 = percentile(s.gaps_us, 99);
    // The tool's own time: the direct call to the same server, or none in process.
    const Scenario* tool = s.via == Via::stdio  ? find(pass, Kind::tool_stdio)
                           : s.via == Via::http ? find(pass, Kind::tool_http)
                                                : nullptr;
    const bool in_process = s.via == Via::in_process;
    std::string tool_cell = "–", own_cell = "–";
    if (tool && !tool->latency_us.empty()) {
      const double t50 = percentile(tool->latency_us, 50), t99 = percentile(tool->latency_us, 99);
      tool_cell = pair_ms(t50, t99);
      own_cell = "**" + pair_ms(gap50 - t50, gap99 - t99) + "**";
    } else if (in_process) {
      tool_cell = "~0";
      own_cell = "**" + pair_ms(gap50, gap99) + "**";
    }
    std::string cpu = "–";
    if (s.kind == Kind::chat && s.runs > 0) {
      char out[32];
      std::snprintf(out, sizeof out, "%.3f ms",
                    double(s.cpu_ticks) * 1000 / double(ticks_per_s) / (s.runs * s.steps));
      cpu = out;
    }
    std::printf("| %s | %u | %s | %s | %s | %s | %s | %u |\n", s.label.c_str(), s.runs,
                pair_ms(gap50, gap99).c_str(), tool_cell.c_str(), own_cell.c_str(), cpu.c_str(),
                pair_ms(percentile(s.latency_us, 50), percentile(s.latency_us, 99)).c_str(),
                s.errors);
  }
  std::printf("\n");
  for (size_t i = 0; i < pass.scenarios.size(); ++i) {
    const Scenario& s = pass.scenarios[i];
    if (s.gaps_us.empty()) continue;
    std::printf("- %s: loop gap p50 by round", s.label.c_str());
    for (size_t r = 0; r < pass.round_gap_p50_us[i].size(); ++r)
      std::printf("%s %s", r ? "," : "", ms(pass.round_gap_p50_us[i][r]).c_str());
    std::printf(" ms\n");
  }
  for (const Scenario& s : pass.scenarios) {
    if (!is_direct_tool(s)) continue;
    std::printf("- %s: %u calls, p50 / p99 %s ms\n", s.label.c_str(), s.runs,
                pair_ms(percentile(s.latency_us, 50), percentile(s.latency_us, 99)).c_str());
  }
  for (const Scenario& s : pass.scenarios)
    if (!s.first_error.empty())
      std::printf("- %s: first error: `%s`\n", s.label.c_str(), s.first_error.c_str());
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace loop_bench
