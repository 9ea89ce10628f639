#include "core/metrics/metrics.h"

#include "core/metrics/series.h"

#include <agentrt/agentrt_plugin.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <charconv>

namespace agentrt::core::metrics {

namespace detail {
std::atomic<Metrics*> g_active{nullptr};
}

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

// Caps of the labels that carry configured names (series.h); the cell's is the config's.
constexpr size_t kMaxModels = 256;
constexpr size_t kMaxProviders = 64;
constexpr size_t kMaxServers = 64;
constexpr size_t kMaxTools = 256;
constexpr size_t kMaxPlugins = 64;

// Request durations reach from a /health to a long stream; agentd's own share of a
// request, and a commit, are tens of microseconds to milliseconds.
const Histogram::BucketBoundaries kRequestBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
const Histogram::BucketBoundaries kOverheadBuckets = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
const Histogram::BucketBoundaries kCommitBuckets = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
const Histogram::BucketBoundaries kFirstDeltaBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                        1,     2.5,  5,     10,   30,  60};
const Histogram::BucketBoundaries kProviderBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};

Family<Counter>& counters(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

Family<Histogram>& histograms(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
}

Family<Gauge>& gauges(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

Series<Counter>::Make counter() {
  return [](Family<Counter>& family, const prometheus::Labels& labels) -> Counter& {
    return family.Add(labels);
  };
}

Series<Histogram>::Make histogram(const Histogram::BucketBoundaries& buckets) {
  return [&buckets](Family<Histogram>& family, const prometheus::Labels& labels) -> Histogram& {
    return family.Add(labels, buckets);
  };
}

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// A client may send any token as a method; the label takes the ones agentd serves.
std::string_view method_label(std::string_view method) {
  static constexpr std::array<std::string_view, 7> kKnown = {"GET",   "HEAD",   "POST",   "PUT",
                                                             "PATCH", "DELETE", "OPTIONS"};
  for (std::string_view known : kKnown)
    if (method == known) return known;
  return "other";
}

// The ABI status a plugin call failed with (sdk/include/agentrt/agentrt_plugin.h).
std::string_view code_label(int32_t code) {
  switch (code) {
    case AGENTRT_ERR_INVALID_ARGUMENT:
      return "invalid_argument";
    case AGENTRT_ERR_UNAUTHENTICATED:
      return "unauthenticated";
    case AGENTRT_ERR_PERMISSION:
      return "permission";
    case AGENTRT_ERR_NOT_FOUND:
      return "not_found";
    case AGENTRT_ERR_CONFLICT:
      return "conflict";
    case AGENTRT_ERR_UNAVAILABLE:
      return "unavailable";
    case AGENTRT_ERR_TIMEOUT:
      return "timeout";
    case AGENTRT_ERR_UPSTREAM:
      return "upstream";
    case AGENTRT_ERR_INTERNAL:
      return "internal";
    case AGENTRT_ERR_REFUSED:
      return "refused";
    default:
      return "other";
  }
}

}  // namespace

struct Metrics::Families {
  explicit Families(const MetricsConfig& config);

  prometheus::Registry registry;
  Series<Counter> http_requests;
  Series<Histogram> http_duration;
  Series<Histogram> overhead;
  Series<Counter> runs;
  Series<Counter> tokens;
  Series<Histogram> first_delta;
  Series<Histogram> provider_call;
  Series<Counter> tool_calls;
  Series<Counter> plugin_errors;
  Series<Counter> rate_limited;
  Histogram& store_commit;
  Gauge& runs_live;
  Gauge& streams_open;
};

Metrics::Families::Families(const MetricsConfig& config)
    : http_requests(counters(registry, "agentrt_http_requests_total",
                             "HTTP requests answered, by route template, method and status."),
                    {{"route"}, {"method"}, {"status"}}, counter()),
      http_duration(histograms(registry, "agentrt_http_request_duration_seconds",
                               "Time from a request's start to its response's end, by route."),
                    {{"route"}}, histogram(kRequestBuckets)),
      overhead(histograms(registry, "agentrt_overhead_seconds",
                          "A request's time less its waits for model providers and tool "
                          "servers, for requests that called one, by route."),
               {{"route"}}, histogram(kOverheadBuckets)),
      runs(counters(registry, "agentrt_runs_total",
                    "Runs ended, by outcome: the done event's reason, refused or error."),
           {{"outcome"}}, counter()),
      tokens(counters(registry, "agentrt_tokens_total",
                      "Tokens of ended runs as their done events report them, by direction "
                      "(input, output), model and cell."),
             {{"direction"}, {"model", kMaxModels}, {"cell", config.max_cells}}, counter()),
      first_delta(histograms(registry, "agentrt_provider_ttft_seconds",
                             "Time from a provider call's start to its first text or tool-call "
                             "delta, retries included, by provider and model."),
                  {{"provider", kMaxProviders}, {"model", kMaxModels}},
                  histogram(kFirstDeltaBuckets)),
      provider_call(histograms(registry, "agentrt_provider_call_duration_seconds",
                               "Provider calls from start to end, retries and their waits "
                               "included, by provider and model."),
                    {{"provider", kMaxProviders}, {"model", kMaxModels}},
                    histogram(kProviderBuckets)),
      tool_calls(counters(registry, "agentrt_tool_calls_total",
                          "Tool calls agentrt ran, by server, tool and outcome."),
                 {{"server", kMaxServers}, {"tool", kMaxTools}, {"outcome"}}, counter()),
      plugin_errors(counters(registry, "agentrt_plugin_errors_total",
                             "Plugin calls that returned an error, by plugin and ABI status."),
                    {{"plugin", kMaxPlugins}, {"code"}}, counter()),
      rate_limited(counters(registry, "agentrt_rate_limited_total",
                            "Requests and runs refused by a rate limit or quota (429), by "
                            "limit: token_rate, cell_rate, actor_runs, cell_tokens."),
                   {{"limit"}}, counter()),
      store_commit(histograms(registry, "agentrt_store_commit_duration_seconds",
                              "State store group commits, from BEGIN to COMMIT.")
                       .Add({}, kCommitBuckets)),
      runs_live(gauges(registry, "agentrt_runs_live", "Runs under way.").Add({})),
      streams_open(gauges(registry, "agentrt_streams_open",
                          "Event streams open (/run and /runs/{runID}/events).")
                       .Add({})) {
  // Each at zero from the start, so that a rate over a refusal's first scrape is right.
  for (std::string_view limit : {"token_rate", "cell_rate", "actor_runs", "cell_tokens"})
    rate_limited.at({limit});
}

Metrics::Metrics(const MetricsConfig& config) : families_(std::make_unique<Families>(config)) {}

Metrics::~Metrics() = default;

void Metrics::request_served(std::string_view route, std::string_view method, int status,
                             Clock::duration took, std::optional<Clock::duration> upstream) {
  char digits[12];
  const auto end = std::to_chars(digits, digits + sizeof digits, status).ptr;
  families_->http_requests
      .at({route, method_label(method),
           std::string_view(digits, static_cast<size_t>(end - digits))})
      .Increment();
  families_->http_duration.at({route}).Observe(seconds(took));
  if (upstream) families_->overhead.at({route}).Observe(seconds(took - *upstream));
}

void Metrics::run_ended(std::string_view outcome, std::string_view cell, std::string_view model,
                        int64_t input_tokens, int64_t output_tokens) {
  families_->runs.at({outcome}).Increment();
  if (input_tokens > 0)
    families_->tokens.at({"input", model, cell}).Increment(static_cast<double>(input_tokens));
  if (output_tokens > 0)
    families_->tokens.at({"output", model, cell}).Increment(static_cast<double>(output_tokens));
}

void Metrics::provider_called(std::string_view provider, std::string_view model,
                              Clock::duration took, std::optional<Clock::duration> first_delta) {
  families_->provider_call.at({provider, model}).Observe(seconds(took));
  if (first_delta) families_->first_delta.at({provider, model}).Observe(seconds(*first_delta));
}

void Metrics::tool_called(std::string_view server, std::string_view tool,
                          std::string_view outcome) {
  families_->tool_calls.at({server, tool, outcome}).Increment();
}

void Metrics::store_committed(Clock::duration took) {
  families_->store_commit.Observe(seconds(took));
}

void Metrics::plugin_failed(std::string_view plugin, int32_t abi_code) {
  // The host asked it to stop, or asked whether an optional call exists: no failure.
  if (abi_code == AGENTRT_ERR_CANCELLED || abi_code == AGENTRT_ERR_UNSUPPORTED) return;
  families_->plugin_errors.at({plugin, code_label(abi_code)}).Increment();
}

void Metrics::rate_limited(std::string_view limit) {
  families_->rate_limited.at({limit}).Increment();
}

void Metrics::stream_opened() {
  families_->streams_open.Increment();
}

void Metrics::stream_closed() {
  families_->streams_open.Decrement();
}

std::string Metrics::exposition(size_t runs_live) const {
  families_->runs_live.Set(static_cast<double>(runs_live));
  return prometheus::TextSerializer().Serialize(families_->registry.Collect());
}

Installed::Installed(const MetricsConfig& config) {
  if (config.access == MetricsAccess::off) return;
  metrics_ = std::make_unique<Metrics>(config);
  detail::g_active.store(metrics_.get(), std::memory_order_release);
}

Installed::~Installed() {
  if (metrics_) detail::g_active.store(nullptr, std::memory_order_release);
}

}  // namespace agentrt::core::metrics
