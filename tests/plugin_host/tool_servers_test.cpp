// ToolServers as the admin API changes it (core/tools/tool_servers.h): a server put in
// place of another keeps its place, a run that resolved the old one keeps it whole until
// it lets go, and finds go on while servers are put and removed.
#include "core/tools/tool_servers.h"
#include "core/domain/errors.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace agentrt::core {
namespace {

ToolServerConfig fixture_entry(const std::string& name, const std::string& prefix) {
  ToolServerConfig config;
  config.name = name;
  config.type = "tool-fixture";
  config.entry = {{"name", name}, {"type", "tool-fixture"}, {"prefix", prefix}};
  return config;
}

std::vector<std::shared_ptr<const ToolServer>> made(const PluginHost& host,
                                                    const ToolServerConfig& config) {
  return {make_tool_server(host, config, "api")};
}

class ToolServersChanged : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host.load(test::fixture("tool-fixture")).loaded);
    servers = std::make_unique<ToolServers>(
        host, std::vector<ToolServerConfig>{fixture_entry("config", "c_")});
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& server : servers->all()) out.push_back(server->config.name);
    return out;
  }

  PluginHost host;
  std::unique_ptr<ToolServers> servers;
};

TEST_F(ToolServersChanged, APutServerReplacesItsNamesakeInPlace) {
  servers->put(made(host, fixture_entry("a", "a_")));
  servers->put(made(host, fixture_entry("b", "b_")));
  EXPECT_EQ(names(), (std::vector<std::string>{"config", "a", "b"}));
  servers->put(made(host, fixture_entry("a", "new_")));
  EXPECT_EQ(names(), (std::vector<std::string>{"config", "a", "b"}));
  EXPECT_EQ(ToolServers::tools_of(*servers->find("a")).front().name.rfind("new_", 0), 0u);
  EXPECT_EQ(servers->find("a")->source, "api");
  EXPECT_EQ(servers->find("config")->source, "config");
}

TEST_F(ToolServersChanged, AHeldServerOutlivesItsReplacementAndRemoval) {
  servers->put(made(host, fixture_entry("a", "old_")));
  std::shared_ptr<const ToolServer> held = servers->find("a");
  servers->put(made(host, fixture_entry("a", "new_")));
  EXPECT_EQ(ToolServers::tools_of(*held).front().name.rfind("old_", 0), 0u);
  EXPECT_TRUE(servers->remove("a"));
  EXPECT_FALSE(servers->remove("a"));
  EXPECT_EQ(servers->find("a"), nullptr);
  std::string why;
  EXPECT_TRUE(held->instance->answers(&why)) << why;
  std::weak_ptr<ToolInstance> instance = held->instance;
  held.reset();
  EXPECT_TRUE(instance.expired());  // the last holder let go: the instance ended
}

TEST_F(ToolServersChanged, FindsGoOnWhileServersChange) {
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop) {
      for (const auto& server : servers->all()) EXPECT_TRUE(server && server->instance);
      EXPECT_TRUE(servers->find("config"));
    }
  });
  for (int i = 0; i < 200; ++i) {
    servers->put(made(host, fixture_entry("s" + std::to_string(i % 5), "p_")));
    if (i % 3 == 0) servers->remove("s" + std::to_string((i + 1) % 5));
  }
  stop = true;
  reader.join();
  EXPECT_EQ(servers->find("config")->source, "config");
}

// A server's list as the tools a run may offer: a name no vendor takes leaves out that
// tool only, a second tool of one name keeps the first, another shape is refused.
TEST(ToolList, KeepsTheToolsAVendorCanBeOffered) {
  const std::vector<ServerTool> tools = parse_tool_list(R"({"tools":[
      {"name":"files.read","description":"dots are MCP's, not a vendor's"},
      {"name":"read","description":"first","parameters":{"type":"object"}},
      {"name":"read","description":"second"},
      {"name":"broken","parameters":[1]},
      {"description":"no name"},
      "not an object",
      {"name":"write"}]})");
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0].name, "read");
  EXPECT_EQ(tools[0].description, "first");
  EXPECT_EQ(tools[1].name, "write");
  EXPECT_EQ(tools[1].parameters, nlohmann::json({{"type", "object"}}));
  EXPECT_THROW(parse_tool_list(R"({"tool":[]})"), DomainError);
  EXPECT_THROW(parse_tool_list("not json"), DomainError);
}

}  // namespace
}  // namespace agentrt::core
