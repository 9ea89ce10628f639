// Shared pieces of the GET /metrics API tests: the Prometheus text read into samples,
// and agentd wired to a fake OpenAI upstream and the tool-fixture plugin, with a mixed
// workload whose every effect on the counters is known.
#pragma once

#include "tests/api/server_tools_client.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt::test {

using MetricLabels = std::map<std::string, std::string>;

struct MetricSample {
  std::string name;
  MetricLabels labels;
  double value = 0;
};

// The samples of a text exposition (format 0.0.4); comment lines are skipped.
inline std::vector<MetricSample> parse_metrics(const std::string& text) {
  std::vector<MetricSample> samples;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    MetricSample sample;
    size_t i = line.find_first_of("{ ");
    sample.name = line.substr(0, i);
    if (i != std::string::npos && line[i] == '{') {
      ++i;
      while (line[i] != '}') {
        const size_t eq = line.find('=', i);
        const std::string name = line.substr(i, eq - i);
        std::string value;
        for (i = eq + 2; line[i] != '"'; ++i) value += line[i] == '\\' ? line[++i] : line[i];
        sample.labels[name] = value;
        i += line[i + 1] == ',' ? 2 : 1;
      }
      ++i;
    }
    sample.value = std::stod(line.substr(i + 1));
    samples.push_back(std::move(sample));
  }
  return samples;
}

// The value of the series with exactly these labels; 0 when there is none (a counter
// that never moved has no series).
inline double metric(const std::vector<MetricSample>& samples, const std::string& name,
                     const MetricLabels& labels = {}) {
  for (const MetricSample& s : samples)
    if (s.name == name && s.labels == labels) return s.value;
  return 0;
}

// The sum over every series of `name`.
inline double metric_sum(const std::vector<MetricSample>& samples, const std::string& name) {
  double sum = 0;
  for (const MetricSample& s : samples)
    if (s.name == name) sum += s.value;
  return sum;
}

// agentd with the `calc` tool server (tool-fixture) and no provider retries, so that a
// failing upstream call is one call.
inline AgentdOptions metrics_options(const TempDir& dir,
                                     nlohmann::json more = nlohmann::json::object()) {
  nlohmann::json config = {
      {"plugin_dirs", {AGENTRT_TEST_FIXTURE_DIR}},
      {"limits", {{"provider_retries", 0}}},
      {"tool_servers", {{{"name", "calc"}, {"type", "tool-fixture"}, {"timeout_ms", 1500}}}}};
  config.update(more);
  return with_args({"--config", dir.write("config.json", config.dump())});
}

// What the workload did, for the counts it should have left.
struct Workload {
  std::string user_token, actor = "actor-zed", session = "sess-metrics-9f2c";
  std::vector<std::string> run_ids;
  int64_t echo_input = 0, echo_output = 0;      // model echo, cell default
  int64_t openai_input = 0, openai_output = 0;  // model openai-model
  int failed_status = 0;                        // the failing provider call's /chat
};

inline void add_usage(const nlohmann::json& usage, int64_t& input, int64_t& output) {
  input += usage.at("input_tokens").get<int64_t>();
  output += usage.at("output_tokens").get<int64_t>();
}

// The done event of a finished run, replayed from GET /runs/{id}/events.
inline nlohmann::json done_of(VendorSetup& s, const std::string& run_id) {
  SseClient replay(s.agentd.port(), "GET", "/runs/" + run_id + "/events",
                   {{"Authorization", "Bearer " + s.admin}});
  if (replay.status() != 200) throw std::runtime_error("replay: " + replay.error_body());
  const std::vector<nlohmann::json> events = replay.rest();
  if (events.empty()) throw std::runtime_error("replay: no events");
  return events.back();
}

// Two /chat and one /run on echo as a non-admin actor, a /chat whose provider call
// fails (500, not retried), a /chat of an agent whose model calls calc's `add`, a 404, a
// 400 and a 405 of an unknown method, and one replay of a run's events.
inline Workload run_workload(VendorSetup& s) {
  Workload w;
  w.user_token = issue_token(s.agentd, s.admin, {{"ttl", "1h"}, {"actor", w.actor}})["token"];
  for (const char* text : {"hello metrics", "and again"}) {
    auto chat =
        call(s.agentd, "POST", "/chat", w.user_token, run_body(text, {{"session_id", w.session}}));
    EXPECT_EQ(chat.status, 200) << chat.body;
    add_usage(chat.json()["usage"], w.echo_input, w.echo_output);
    w.run_ids.push_back(chat.json()["run_id"]);
  }
  auto stream = open_run(s.agentd, w.user_token, run_body("streamed words"));
  EXPECT_EQ(stream->status(), 200) << stream->error_body();
  const std::vector<nlohmann::json> events = stream->rest();
  add_usage(events.back()["usage"], w.echo_input, w.echo_output);
  w.run_ids.push_back(events.back()["run_id"]);

  s.fake.enqueue(Reply::failure(500));
  auto failed = call(s.agentd, "POST", "/chat", s.admin, s.body("this call fails"));
  w.failed_status = failed.status;
  const std::string message = failed.json()["error"]["message"];
  std::smatch found;
  EXPECT_TRUE(std::regex_search(message, found, std::regex("run_[0-9A-Za-z]+"))) << message;
  const std::string failed_run = found.str();
  add_usage(done_of(s, failed_run)["usage"], w.openai_input, w.openai_output);
  w.run_ids.push_back(failed_run);

  auto agent = call(s.agentd, "POST", "/agents", s.admin,
                    {{"name", "calculator"},
                     {"model", vendor_model(Vendor::openai)},
                     {"tools", {{{"type", "mcp"}, {"server", "calc"}}}}});
  EXPECT_EQ(agent.status, 201) << agent.body;
  s.fake.enqueue(Reply::calling({{"call_1", "add", R"({"a":2,"b":3})"}}, "Adding."));
  s.fake.enqueue(Reply::answer("It is 5.", 2));
  auto tool =
      call(s.agentd, "POST", "/chat", s.admin, s.body("2+3?", {{"agent_id", agent.json()["id"]}}));
  EXPECT_EQ(tool.status, 200) << tool.body;
  add_usage(tool.json()["usage"], w.openai_input, w.openai_output);
  w.run_ids.push_back(tool.json()["run_id"]);

  EXPECT_EQ(s.agentd.request("GET", "/no/such/route").status, 404);
  EXPECT_EQ(call(s.agentd, "POST", "/chat", w.user_token, {{"model", "echo"}}).status, 400);
  EXPECT_EQ(s.agentd.request("BREW", "/health").status, 405);
  return w;
}

}  // namespace agentrt::test
