// A RunService over a store in a temp dir and one provider plugin, for the core tests
// that run conversations without agentd.
#pragma once

#include "core/agents/agent_service.h"
#include "core/runs/run_service.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace agentrt::core {

// Keeps every event a run sends.
class RecordingSink : public RunSink {
 public:
  bool send(const std::string& event) override {
    events.push_back(event);
    return true;
  }
  std::vector<std::string> events;
};

class RunServiceFixture : public ::testing::Test {
 protected:
  // Loads the plugin at `path` and serves its models as the configured provider `name`.
  void start(const std::string& path, const std::string& name, RunSettings settings = {}) {
    ASSERT_TRUE(host.load(path).loaded) << path;
    providers = std::make_unique<ProviderRegistry>(store, host);
    auto instance = std::make_shared<ProviderInstance>(host.find(name), "{}");
    providers->add_configured(name, instance, parse_model_list(instance->list_models()));
    runs = std::make_unique<RunService>(sessions, *providers, agents, settings);
  }

  test_util::TempDir dir;
  StateStore store{dir.path()};
  SessionStore sessions{store};
  AgentService agents{store};
  PluginHost host;
  std::unique_ptr<ProviderRegistry> providers;
  std::unique_ptr<RunService> runs;
};

}  // namespace agentrt::core
