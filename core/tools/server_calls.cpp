#include "core/tools/server_calls.h"

#include "core/metrics/request_timing.h"
#include "core/plugin_host/cancel_waker.h"
#include "lib/text/utf8.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace agentrt::core {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Why a call was stopped from outside, set once by the watcher.
enum class Stop : int { none, timeout, interrupt };

// One call under way: its own flag and waker, so the watcher can stop it alone.
struct Running {
  const ServerCall* call = nullptr;
  std::atomic<int> stop{static_cast<int>(Stop::none)};
  CancelWaker waker;
  Clock::time_point deadline;
  ToolResult result;
  bool cut = false;
  bool finished = false;  // under Watch::mutex
};

struct Watch {
  std::mutex mutex;
  std::condition_variable changed;
  size_t left = 0;
};

// The output so far, cut to `room` at a character's end, with the note the model reads.
void keep_output(Running& run, std::string_view text, uint64_t room) {
  std::string& out = run.result.output;
  if (run.cut) return;
  if (out.size() + text.size() <= room) {
    out.append(text);
    return;
  }
  out.append(text::utf8_prefix(text, room - out.size()));
  out += "\n[output cut at " + std::to_string(room) + " bytes]";
  run.cut = true;
}

void call_one(Running& run, uint64_t max_output_bytes) {
  const ServerCall& sc = *run.call;
  ToolResult& result = run.result;
  const json arguments =
      json::parse(sc.call.arguments.empty() ? "{}" : sc.call.arguments, nullptr, false, true);
  if (!arguments.is_object()) {
    result.is_error = true;
    result.output = "the arguments are not a JSON object; call " + sc.call.name +
                    " again with an object of its parameters";
    return;
  }
  const json request = {{"name", sc.call.name},
                        {"arguments", arguments},
                        {"call_id", sc.call.id},
                        {"max_output_bytes", max_output_bytes}};
  try {
    sc.server->instance->call(
        request.dump(),
        [&](const ProviderDelta& d) {
          if (d.kind == AGENTRT_DELTA_TEXT) keep_output(run, d.data, max_output_bytes);
          if (d.kind == AGENTRT_DELTA_FINISH)
            result.is_error = json::parse(d.data, nullptr, false).value("is_error", false);
          return !run.cut;  // a plugin that ignores max_output_bytes is stopped there
        },
        [&] { return run.stop.load() != static_cast<int>(Stop::none); }, &run.waker);
  } catch (const PluginError& e) {
    if (run.cut) return;  // stopped by the cut: the result is what was kept
    result.is_error = true;
    const auto stop = static_cast<Stop>(run.stop.load());
    if (stop == Stop::timeout) {
      result.timed_out = true;
      result.output = "timed out after " + std::to_string(sc.server->config.timeout_ms) + " ms";
    } else if (stop == Stop::interrupt) {
      result.output = "interrupted";
      result.interrupted = true;
    } else {
      result.output = e.what();
    }
  }
}

// Stops what overruns its deadline and everything once the run is cancelled, until every
// call has finished.
void watch(std::vector<std::unique_ptr<Running>>& runs, Watch& w,
           const std::function<bool()>& cancelled) {
  std::unique_lock<std::mutex> lock(w.mutex);
  while (w.left > 0) {
    w.changed.wait_for(lock, std::chrono::milliseconds(50));
    const bool interrupt = cancelled && cancelled();
    const auto now = Clock::now();
    for (auto& run : runs) {
      if (run->finished || run->stop.load() != static_cast<int>(Stop::none)) continue;
      if (!interrupt && now < run->deadline) continue;
      run->stop.store(static_cast<int>(interrupt ? Stop::interrupt : Stop::timeout));
      run->waker.wake();
    }
  }
}

}  // namespace

std::vector<ToolResult> run_server_calls(const std::vector<ServerCall>& calls,
                                         uint64_t max_output_bytes,
                                         const std::function<bool()>& cancelled) {
  const metrics::UpstreamSpan upstream(!calls.empty());
  std::vector<std::unique_ptr<Running>> runs;
  Watch w;
  w.left = calls.size();
  std::vector<std::thread> threads;
  for (const ServerCall& call : calls) {
    auto run = std::make_unique<Running>();
    run->call = &call;
    run->result.call_id = call.call.id;
    run->result.name = call.call.name;
    run->deadline = Clock::now() + std::chrono::milliseconds(call.server->config.timeout_ms);
    runs.push_back(std::move(run));
  }
  for (auto& run : runs) {
    threads.emplace_back([&w, &run = *run, max_output_bytes] {
      const auto began = Clock::now();
      call_one(run, max_output_bytes);
      run.result.duration_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
      std::lock_guard<std::mutex> lock(w.mutex);
      run.finished = true;
      --w.left;
      w.changed.notify_all();
    });
  }
  watch(runs, w, cancelled);
  for (std::thread& t : threads) t.join();
  std::vector<ToolResult> results;
  for (auto& run : runs) results.push_back(std::move(run->result));
  return results;
}

}  // namespace agentrt::core
