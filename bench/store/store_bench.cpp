// The state store's share of a /chat, without HTTP or an upstream: stores runs one after
// another, as /chat does at concurrency 1 (SessionStore::finish_run, the run written
// whole at its end), with the store's own WAL checkpointer running beside it.
//
//   store_bench [--runs N] [--answer-bytes N] [--continue] [--list]
//
// --answer-bytes sets the answer's length (the bench mock's is 80 bytes; a real answer
// is often 0.5-2 KB, which decides whether rows stay on their B-tree page). With
// --continue, every run goes to one of 64 sessions in turn instead of a new session.
// With --list, the first page (50) of the cell's session list is then read, the
// whole cell's as an admin token reads it and one actor's, and timed.
// Prints one JSON line: wall time per run (p50, p99, mean, µs), the calling thread's
// CPU per run, and the WAL frames SQLite wrote per commit.
#include "core/domain/ids.h"
#include "core/log/logger.h"
#include "core/runs/context_window.h"
#include "core/sessions/session_store.h"

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace {

using agentrt::core::new_id;

struct Options {
  int runs = 20000;
  size_t answer_bytes = 80;
  bool continue_sessions = false;
  bool list = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc)
      o.runs = std::atoi(argv[++i]);
    else if (arg == "--answer-bytes" && i + 1 < argc)
      o.answer_bytes = static_cast<size_t>(std::atol(argv[++i]));
    else if (arg == "--continue")
      o.continue_sessions = true;
    else if (arg == "--list")
      o.list = true;
    else {
      std::fprintf(stderr,
                   "usage: store_bench [--runs N] [--answer-bytes N] [--continue] [--list]\n");
      std::exit(2);
    }
  }
  return o;
}

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// What /chat stores for one exchange: the events it streamed and both messages.
agentrt::core::RunOutcome outcome_for(const agentrt::core::RunRecord& run,
                                      const std::string& answer) {
  nlohmann::json events =
      nlohmann::json::array({{{"type", "run_start"},
                              {"seq", 1},
                              {"run_id", run.id},
                              {"session_id", run.session_id},
                              {"model", run.model},
                              {"timestamp", run.started_at}},
                             {{"type", "stream_delta"}, {"seq", 2}, {"content", answer}},
                             {{"type", "done"},
                              {"seq", 3},
                              {"run_id", run.id},
                              {"reason", "end_turn"},
                              {"usage", {{"input_tokens", 8}, {"output_tokens", 16}}}}});
  agentrt::core::RunOutcome outcome{run.id, run.cell, run.session_id, "end_turn",
                                    8,      16,       events.dump(),  {}};
  outcome.new_messages = {agentrt::core::text_message("user", "hello"),
                          agentrt::core::text_message("assistant", answer)};
  return outcome;
}

double percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  auto rank = static_cast<size_t>(p / 100.0 * static_cast<double>(samples.size()));
  return samples[std::min(rank, samples.size() - 1)];
}

// The median time of the first page of the cell's sessions, µs: the whole cell's (an
// admin token naming no actor) and the bench actor's.
nlohmann::json time_lists(const agentrt::core::SessionStore& sessions) {
  nlohmann::json medians;
  for (const bool by_actor : {false, true}) {
    std::vector<double> us;
    for (int i = 0; i < 21; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto page = sessions.list(
          "default", by_actor ? std::optional<std::string>("bench") : std::nullopt, {});
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      if (page["data"].empty()) std::abort();
    }
    medians[by_actor ? "actor" : "cell"] = percentile(us, 50);
  }
  return medians;
}

// Pages the store's writer connection has written to the WAL so far: SQLite counts
// them per connection (SQLITE_DBSTATUS_CACHE_WRITE), a frame each.
int64_t wal_frames_written(agentrt::core::StateStore& store) {
  int frames = 0, highwater = 0;
  store.write([&](agentrt::core::Connection& db) {
    sqlite3_db_status(db.handle(), SQLITE_DBSTATUS_CACHE_WRITE, &frames, &highwater, 0);
  });
  return frames;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("store_bench." + new_id("d"))).string();
  std::vector<std::string> sessions;
  for (int i = 0; i < 64; ++i) sessions.push_back(new_id("ses"));
  std::string answer;
  while (answer.size() < o.answer_bytes) answer += "w" + std::to_string(answer.size() % 97) + " ";
  answer.resize(o.answer_bytes);

  std::vector<double> wall_us;
  double cpu_us = 0;
  int64_t frames_before = 0, frames_after = 0;
  nlohmann::json list_us;
  {
    agentrt::core::StateStore store(dir);
    agentrt::core::SessionStore session_store(store);
    const int warmup = std::min(2000, o.runs);
    for (int i = 0; i < warmup + o.runs; ++i) {
      if (i == warmup) {
        frames_before = wal_frames_written(store);
        cpu_us = -thread_cpu_us();
      }
      agentrt::core::RunRecord run{new_id("run"),
                                   "default",
                                   o.continue_sessions ? sessions[i % 64] : new_id("ses"),
                                   "bench",
                                   "mock-model",
                                   "running",
                                   "",
                                   agentrt::core::utc_timestamp_now(),
                                   "",
                                   0,
                                   0};
      const auto outcome = outcome_for(run, answer);
      const auto t0 = std::chrono::steady_clock::now();
      session_store.finish_run(outcome, &run);
      const auto t1 = std::chrono::steady_clock::now();
      if (i >= warmup)
        wall_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    cpu_us += thread_cpu_us();
    frames_after = wal_frames_written(store);
    if (o.list) list_us = time_lists(session_store);
  }
  std::filesystem::remove_all(dir);

  double mean = 0;
  for (double w : wall_us) mean += w;
  mean /= static_cast<double>(wall_us.size());
  const double runs = static_cast<double>(o.runs);
  const double frames = static_cast<double>(frames_after - frames_before) / runs;
  nlohmann::json line = {
      {"runs", o.runs},
      {"answer_bytes", o.answer_bytes},
      {"sessions", o.continue_sessions ? "64, continued" : "new each run"},
      {"wall_us",
       {{"p50", percentile(wall_us, 50)}, {"p99", percentile(wall_us, 99)}, {"mean", mean}}},
      {"cpu_us_per_run", cpu_us / runs},
      {"wal_frames_per_commit", frames}};
  if (o.list) line["list_first_page_us_p50"] = list_us;
  std::printf("%s\n", line.dump().c_str());
  return 0;
}
