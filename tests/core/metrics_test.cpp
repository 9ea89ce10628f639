// core/metrics: what each hook adds to the text, the caps on label values, and that
// metrics off install nothing.
#include "core/metrics/metrics.h"
#include "core/metrics/request_timing.h"

#include <agentrt/agentrt_plugin.h>
#include <gtest/gtest.h>

#include <string>

namespace agentrt::core::metrics {
namespace {

bool has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

MetricsConfig cells(unsigned max_cells) {
  MetricsConfig config;
  config.max_cells = max_cells;
  return config;
}

TEST(Metrics, CellsPastTheCapAreCountedAsOther) {
  Metrics metrics(cells(2));
  for (const char* cell : {"acme", "beta", "gamma", "acme", "delta"})
    metrics.run_ended("end_turn", cell, "echo", 3, 2);
  const std::string text = metrics.exposition(0);
  EXPECT_TRUE(has(text, R"(agentrt_tokens_total{cell="acme",direction="input",model="echo"} 6)"))
      << text;
  EXPECT_TRUE(has(text, R"(agentrt_tokens_total{cell="beta",direction="output",model="echo"} 2)"));
  EXPECT_TRUE(has(text, R"(agentrt_tokens_total{cell="_other",direction="input",model="echo"} 6)"));
  EXPECT_EQ(text.find("gamma"), std::string::npos);
  EXPECT_TRUE(has(text, R"(agentrt_runs_total{outcome="end_turn"} 5)"));
}

TEST(Metrics, RequestsByTemplateWithKnownMethodsOnly) {
  Metrics metrics(cells(10));
  metrics.request_served("/chat", "POST", 200, std::chrono::milliseconds(3),
                         std::chrono::milliseconds(2));
  metrics.request_served("unmatched", "BREW", 405, std::chrono::milliseconds(1), std::nullopt);
  const std::string text = metrics.exposition(0);
  EXPECT_TRUE(
      has(text, R"(agentrt_http_requests_total{method="POST",route="/chat",status="200"} 1)"));
  EXPECT_TRUE(
      has(text, R"(agentrt_http_requests_total{method="other",route="unmatched",status="405"} 1)"));
  EXPECT_TRUE(has(text, R"(agentrt_overhead_seconds_count{route="/chat"} 1)"));
  EXPECT_EQ(text.find(R"(agentrt_overhead_seconds_count{route="unmatched"})"), std::string::npos);
}

TEST(Metrics, PluginErrorsByCodeButNotCancellationsOrProbes) {
  Metrics metrics(cells(10));
  metrics.plugin_failed("openai", AGENTRT_ERR_UNAVAILABLE);
  metrics.plugin_failed("openai", AGENTRT_ERR_CANCELLED);
  metrics.plugin_failed("mcp", AGENTRT_ERR_UNSUPPORTED);
  metrics.plugin_failed("mcp", 99);
  const std::string text = metrics.exposition(3);
  EXPECT_TRUE(has(text, R"(agentrt_plugin_errors_total{code="unavailable",plugin="openai"} 1)"));
  EXPECT_TRUE(has(text, R"(agentrt_plugin_errors_total{code="other",plugin="mcp"} 1)"));
  EXPECT_EQ(text.find("cancelled"), std::string::npos);
  EXPECT_TRUE(has(text, "agentrt_runs_live 3"));
}

TEST(Metrics, OffInstallsNothingAndLoopbackInstallsForItsLife) {
  MetricsConfig off;
  off.access = MetricsAccess::off;
  {
    Installed installed(off);
    EXPECT_EQ(active(), nullptr);
    ProviderCallTimer timer("p", "m");  // measures nothing, and needs nothing
    timer.answered();
  }
  {
    Installed installed(MetricsConfig{});
    ASSERT_NE(active(), nullptr);
    RequestUpstream request;
    {
      ProviderCallTimer timer("echo", "echo");
      timer.answered();
    }
    ASSERT_TRUE(request.time().has_value());
    const std::string text = active()->exposition(0);
    EXPECT_TRUE(
        has(text, R"(agentrt_provider_ttft_seconds_count{model="echo",provider="echo"} 1)"));
    EXPECT_TRUE(has(
        text, R"(agentrt_provider_call_duration_seconds_count{model="echo",provider="echo"} 1)"));
  }
  EXPECT_EQ(active(), nullptr);
}

}  // namespace
}  // namespace agentrt::core::metrics
