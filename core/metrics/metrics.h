// agentd's own measurements, served as Prometheus text by GET /metrics
// (docs/operator-guide.md, "Metrics", lists every metric and its labels). One instance
// for the process, installed by `agentd serve` when `metrics.access` is not "off"; the
// code that measures asks active() first, so with metrics off each hook costs a load
// and a branch, and takes no clock reading.
//
// Label values are bounded: routes are templates, methods one of the known few, and
// every label that carries a configured name (cell, model, provider, server, tool,
// plugin) takes a capped number of distinct values (series.h), the rest counted as
// "_other". No label carries an id, a token or an actor.
#pragma once

#include "core/config/config.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core::metrics {

using Clock = std::chrono::steady_clock;

// What a label that met its cap reads (series.h). Cell ids cannot begin with '_', so
// it is never a real cell's.
inline constexpr const char* kOther = "_other";
// The route label of a request that matched no route (404, 405, a malformed request).
inline constexpr const char* kUnmatched = "unmatched";

class Metrics {
 public:
  explicit Metrics(const MetricsConfig& config);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One HTTP request answered. `route`: the matched template, or kUnmatched. `upstream`:
  // its time in provider and tool-server calls, when it made any (request_timing.h).
  void request_served(std::string_view route, std::string_view method, int status,
                      Clock::duration took, std::optional<Clock::duration> upstream);
  // One run ended: `outcome` is its done reason, "refused" (the provider refused the
  // request before anything ran) or "error". Tokens as its done event reports them.
  void run_ended(std::string_view outcome, std::string_view cell, std::string_view model,
                 int64_t input_tokens, int64_t output_tokens);
  // One provider call (retries and their waits included), and the time to its first
  // answer delta when one came.
  void provider_called(std::string_view provider, std::string_view model, Clock::duration took,
                       std::optional<Clock::duration> first_delta);
  // One tool call agentrt ran; `outcome`: ok, error, timeout, interrupted, not_offered.
  void tool_called(std::string_view server, std::string_view tool, std::string_view outcome);
  // One group commit of the state store (core/store/write_batcher.h).
  void store_committed(Clock::duration took);
  // A plugin call that returned an error, with the ABI status it returned.
  void plugin_failed(std::string_view plugin, int32_t abi_code);
  // A request or run refused by a rate limit or quota; `limit` is one of token_rate,
  // cell_rate, actor_runs, cell_tokens (core/limits/limits.h).
  void rate_limited(std::string_view limit);
  void stream_opened();
  void stream_closed();

  // The Prometheus text exposition of everything, with `runs_live` (the runs under way
  // now, read at the scrape rather than counted at every start and end).
  std::string exposition(size_t runs_live) const;

 private:
  struct Families;
  std::unique_ptr<Families> families_;
};

namespace detail {
extern std::atomic<Metrics*> g_active;
}

// The process's metrics; null when metrics are off.
inline Metrics* active() {
  return detail::g_active.load(std::memory_order_acquire);
}

// Makes the process's metrics for its life (nothing when `config.access` is off). Made
// before anything measures and ended after it all stops: `agentd serve` holds it
// around the engine and the server.
class Installed {
 public:
  explicit Installed(const MetricsConfig& config);
  ~Installed();
  Installed(const Installed&) = delete;
  Installed& operator=(const Installed&) = delete;

 private:
  std::unique_ptr<Metrics> metrics_;
};

}  // namespace agentrt::core::metrics
