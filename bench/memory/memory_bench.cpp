// Scale benchmark of the memory-sqlite plugin, loaded through the real plugin host:
// loads a synthetic store (one save call per entry), then measures count over many
// filter combinations and search for common and rare words. Writes a Markdown report.
//
//   memory_bench --data-dir DIR [--entries N] [--count-samples N] [--search-samples N]
//                [--search-candidates N] [--report FILE]
//
// A data dir that already holds the same data set (same --entries) is reused, so the
// measurements can be repeated without reloading.
#include "phases.h"

#include "core/plugin_host/plugin_host.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace agentrt::bench {
namespace {

struct Options {
  std::string data_dir;
  std::string report;
  size_t entries = 1000000;
  size_t count_samples = 500;
  size_t search_samples = 200;
  int search_candidates = 0;  // 0: the plugin's default
  std::string command_line;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "memory_bench: " << why
            << "\nusage: memory_bench --data-dir DIR [--entries N] [--count-samples N]"
               " [--search-samples N] [--search-candidates N] [--report FILE]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) usage("missing value for " + flag);
    std::string value = argv[++i];
    if (flag == "--data-dir")
      o.data_dir = value;
    else if (flag == "--report")
      o.report = value;
    else if (flag == "--entries")
      o.entries = std::stoul(value);
    else if (flag == "--count-samples")
      o.count_samples = std::stoul(value);
    else if (flag == "--search-samples")
      o.search_samples = std::stoul(value);
    else if (flag == "--search-candidates")
      o.search_candidates = std::stoi(value);
    else
      usage("unknown option " + flag);
  }
  if (o.data_dir.empty()) usage("--data-dir is required");
  return o;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// The machine may be shared: the report says how busy it was around the measurements.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

uintmax_t store_bytes(const std::string& dir) {
  uintmax_t total = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(dir + "/memory.db" + suffix, ec);
    if (!ec) total += size;
  }
  return total;
}

// "0.571 s"
std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

void table(std::ostream& out, const std::vector<ClassResult>& rows, double p_high, bool hits) {
  out << "| filter / query | samples | p50 | p" << p_high << " | mean"
      << (hits ? " | hits/query" : "") << " |\n|---|---:|---:|---:|---:" << (hits ? "|---:" : "")
      << "|\n";
  Latencies all;
  for (const ClassResult& r : rows) {
    out << "| " << r.name << " | " << r.latencies.size() << " | " << ms(r.latencies.percentile(50))
        << " | " << ms(r.latencies.percentile(p_high)) << " | " << ms(r.latencies.mean());
    if (hits) out << " | " << r.mean_hits;
    out << " |\n";
    all.merge(r.latencies);
  }
  out << "| **all of the above** | " << all.size() << " | " << ms(all.percentile(50)) << " | "
      << ms(all.percentile(p_high)) << " | " << ms(all.mean()) << (hits ? " | " : "") << " |\n\n";
}

struct Measured {
  double open_seconds = 0;  // creating the plugin instance: opening memory.db and migrating it
  LoadResult load;
  std::vector<ClassResult> counts, searches;
  std::string load_average_before, load_average_after;
};

void report(std::ostream& out, const Options& o, const Measured& m) {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  out << "## memory-sqlite at " << o.entries << " entries (" << date << ")\n\n"
      << "- command: `" << o.command_line << "`\n- machine: " << cpu_model() << ", "
      << std::thread::hardware_concurrency() << " cores; SQLite " << sqlite3_libversion() << "\n"
      << "- load average (1, 5, 15 min) before the count and search phases: "
      << m.load_average_before << "; after: " << m.load_average_after << "\n"
      << "- store: " << store_bytes(o.data_dir) / (1024 * 1024) << " MiB on disk\n"
      << "- open (plugin instance created; runs any pending schema migration): "
      << seconds(m.open_seconds) << "\n\n### Load\n\n";
  const LoadResult& load = m.load;
  if (load.reused) {
    out << "Reused an existing store with the same data set (no load measured).\n\n";
  } else {
    out << "- " << load.entries << " saves, one call per entry, one thread: " << load.seconds
        << " s, " << static_cast<long>(double(load.entries) / load.seconds) << " entries/s\n"
        << "- save latency p50 " << ms(load.saves.percentile(50)) << ", p99 "
        << ms(load.saves.percentile(99)) << ", max " << ms(load.saves.percentile(100)) << "\n\n";
  }
  out << "### count (all seven layers, one call)\n\n";
  table(out, m.counts, 99, false);
  out << "### search (limit 10)\n\n";
  table(out, m.searches, 95, true);
}

int run(const Options& o) {
  std::filesystem::create_directories(o.data_dir);
  core::PluginHost host;
  core::PluginStatus status = host.load(AGENTRT_BENCH_MEMORY_PLUGIN);
  if (!status.loaded) throw std::runtime_error("cannot load the plugin: " + status.error);
  nlohmann::json config = {{"data_dir", o.data_dir}};
  if (o.search_candidates > 0) config["search_candidates"] = o.search_candidates;
  Measured m;
  // A store written by an older release is upgraded here, so this time includes that.
  auto opening = std::chrono::steady_clock::now();
  core::PluginInstance instance(host.find("memory-sqlite"), config.dump());
  m.open_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - opening).count();
  std::fprintf(stderr, "store open in %.3f s\n", m.open_seconds);
  Memory memory(instance);
  Workload workload(20261122);

  m.load = load(memory, workload, o.entries);
  m.load_average_before = load_average();
  std::fprintf(stderr, "measuring counts...\n");
  m.counts = measure_counts(memory, workload, o.count_samples, 1);
  std::fprintf(stderr, "measuring searches...\n");
  m.searches = measure_searches(memory, workload, o.search_samples, 2);
  m.load_average_after = load_average();

  std::ostringstream text;
  report(text, o, m);
  std::cout << text.str();
  if (!o.report.empty()) std::ofstream(o.report, std::ios::app) << text.str();
  return 0;
}

}  // namespace
}  // namespace agentrt::bench

int main(int argc, char** argv) {
  try {
    return agentrt::bench::run(agentrt::bench::parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "memory_bench: " << e.what() << "\n";
    return 1;
  }
}
