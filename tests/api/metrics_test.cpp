// GET /metrics against the real agentd after a mixed workload (metrics_client.h): each
// counter moved by exactly what the workload did, no label value is an id, a token or
// an actor, and Prometheus' own promtool accepts the text.
#include "tests/api/metrics_client.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <set>

namespace agentrt::test {
namespace {

using nlohmann::json;

class MetricsApi : public ::testing::Test {
 protected:
  std::string scrape() {
    auto response = s.agentd.request("GET", "/metrics");
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(response.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    return response.body;
  }

  TempDir dir;
  VendorSetup s{Vendor::openai, metrics_options(dir)};
};

using Samples = std::vector<MetricSample>;
const char* const kRequests = "agentrt_http_requests_total";

double served(const Samples& m, const std::string& route, const std::string& method, int status) {
  return metric(m, kRequests,
                {{"route", route}, {"method", method}, {"status", std::to_string(status)}});
}

// HTTP requests by route template, method and status, and their durations.
void expect_requests(const Samples& m, const Workload& w) {
  EXPECT_EQ(served(m, "/chat", "POST", 200), 3);
  EXPECT_EQ(served(m, "/chat", "POST", w.failed_status), 1);
  EXPECT_EQ(served(m, "/chat", "POST", 400), 1);
  EXPECT_EQ(served(m, "/run", "POST", 200), 1);
  EXPECT_EQ(served(m, "/runs/{runID}/events", "GET", 200), 1);
  EXPECT_EQ(served(m, "/agents", "POST", 201), 1);
  EXPECT_EQ(served(m, "/admin/tokens", "POST", 201), 1);
  EXPECT_EQ(served(m, "/admin/shared-providers", "POST", 200), 1);
  EXPECT_EQ(served(m, "unmatched", "GET", 404), 1);
  EXPECT_EQ(served(m, "unmatched", "other", 405), 1) << "an unknown method is one label value";
  EXPECT_EQ(served(m, "/metrics", "GET", 200), 0) << "a scrape is counted once it is answered";
  EXPECT_EQ(metric_sum(m, kRequests), 12) << "with the provider's setup";
  EXPECT_EQ(metric(m, "agentrt_http_request_duration_seconds_count", {{"route", "/chat"}}), 5);
  // agentd's own time: for each request that called an upstream, below its whole time.
  EXPECT_EQ(metric(m, "agentrt_overhead_seconds_count", {{"route", "/chat"}}), 4);
  EXPECT_EQ(metric(m, "agentrt_overhead_seconds_count", {{"route", "/run"}}), 1);
  EXPECT_EQ(metric_sum(m, "agentrt_overhead_seconds_count"), 5);
  EXPECT_LT(metric(m, "agentrt_overhead_seconds_sum", {{"route", "/chat"}}),
            metric(m, "agentrt_http_request_duration_seconds_sum", {{"route", "/chat"}}));
}

// Runs by outcome, and their tokens as their done events said.
void expect_runs(const Samples& m, const Workload& w) {
  EXPECT_EQ(metric(m, "agentrt_runs_total", {{"outcome", "end_turn"}}), 4);
  EXPECT_EQ(metric(m, "agentrt_runs_total", {{"outcome", "error"}}), 1);
  EXPECT_EQ(metric_sum(m, "agentrt_runs_total"), 5);
  const std::string tokens = "agentrt_tokens_total";
  auto of = [](const char* direction, const std::string& model) {
    return MetricLabels{{"direction", direction}, {"model", model}, {"cell", "default"}};
  };
  const std::string model = vendor_model(Vendor::openai);
  EXPECT_EQ(metric(m, tokens, of("input", "echo")), w.echo_input);
  EXPECT_EQ(metric(m, tokens, of("output", "echo")), w.echo_output);
  EXPECT_EQ(metric(m, tokens, of("input", model)), w.openai_input);
  EXPECT_EQ(metric(m, tokens, of("output", model)), w.openai_output);
  EXPECT_EQ(metric_sum(m, tokens), w.echo_input + w.echo_output + w.openai_input + w.openai_output);
  EXPECT_EQ(metric(m, "agentrt_runs_live"), 0);
  EXPECT_EQ(metric(m, "agentrt_streams_open"), 0);
}

// Provider calls (three of echo, three of openai, whose failed one had no first delta),
// the tool call, the plugin's error and the commits.
void expect_calls(const Samples& m) {
  const MetricLabels echo = {{"provider", "echo"}, {"model", "echo"}};
  const MetricLabels openai = {{"provider", "openai"}, {"model", vendor_model(Vendor::openai)}};
  EXPECT_EQ(metric(m, "agentrt_provider_call_duration_seconds_count", echo), 3);
  EXPECT_EQ(metric(m, "agentrt_provider_call_duration_seconds_count", openai), 3);
  EXPECT_EQ(metric(m, "agentrt_provider_ttft_seconds_count", echo), 3);
  EXPECT_EQ(metric(m, "agentrt_provider_ttft_seconds_count", openai), 2);
  EXPECT_EQ(
      metric(m, "agentrt_plugin_errors_total", {{"plugin", "openai"}, {"code", "unavailable"}}), 1);
  EXPECT_EQ(metric(m, "agentrt_tool_calls_total",
                   {{"server", "calc"}, {"tool", "add"}, {"outcome", "ok"}}),
            1);
  EXPECT_EQ(metric_sum(m, "agentrt_tool_calls_total"), 1);
  EXPECT_GE(metric(m, "agentrt_store_commit_duration_seconds_count"), 5);
}

TEST_F(MetricsApi, AMixedWorkloadMovesEachCounterByWhatItDid) {
  const Workload w = run_workload(s);
  const Samples m = parse_metrics(scrape());
  expect_requests(m, w);
  expect_runs(m, w);
  expect_calls(m);
  // The scrape itself shows in the next one.
  EXPECT_EQ(served(parse_metrics(scrape()), "/metrics", "GET", 200), 1);
}

TEST_F(MetricsApi, NoLabelHoldsAnIdATokenOrAnActor) {
  const Workload w = run_workload(s);
  const std::string text = scrape();
  std::vector<std::string> secrets = {w.actor, w.session, w.user_token, s.admin,
                                      "ses_",  "run_",    "art_",       "call_1"};
  secrets.insert(secrets.end(), w.run_ids.begin(), w.run_ids.end());
  for (const std::string& secret : secrets)
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in\n" << text;

  const std::set<std::string> names = {"route", "method", "status",   "outcome", "direction",
                                       "model", "cell",   "provider", "server",  "tool",
                                       "code",  "plugin", "limit",    "le"};
  for (const MetricSample& sample : parse_metrics(text)) {
    for (const auto& [name, value] : sample.labels) {
      EXPECT_EQ(names.count(name), 1u) << sample.name << " has label " << name;
      if (name != "route") continue;
      EXPECT_TRUE(value == "unmatched" || value.rfind('/', 0) == 0) << value;
      if (value.find("/runs/") == 0) {
        EXPECT_EQ(value, "/runs/{runID}/events") << "a template, never a path";
      }
    }
  }
}

// promtool's exit status and output for `text` on its stdin; nullopt without promtool.
std::optional<std::pair<int, std::string>> promtool_check(const TempDir& dir,
                                                          const std::string& text) {
  std::string promtool;
  for (const char* where : {"/usr/bin/promtool", "/usr/local/bin/promtool"})
    if (::access(where, X_OK) == 0) promtool = where;
  if (promtool.empty()) return std::nullopt;
  const std::string input = dir.write("metrics.txt", text);
  const std::string command = promtool + " check metrics < " + input + " 2>&1";
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) return std::nullopt;
  std::string said;
  char buffer[512];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) said.append(buffer, n);
  const int status = ::pclose(out);
  return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, said);
}

TEST_F(MetricsApi, PromtoolAcceptsTheTextAfterTheWorkload) {
  run_workload(s);
  const std::string text = scrape();
  const auto checked = promtool_check(dir, text);
  if (!checked)
    GTEST_SKIP() << "promtool is not installed (Debian package `prometheus`, which "
                    "scripts/install-deps.sh installs): the text was not checked";
  EXPECT_EQ(checked->first, 0) << checked->second << "\n" << text;
  EXPECT_EQ(checked->second, "") << "promtool's lint found problems:\n" << checked->second;
}

}  // namespace
}  // namespace agentrt::test
