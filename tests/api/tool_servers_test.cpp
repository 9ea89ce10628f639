// GET /admin/tool-servers against the real agentd: the config file's tool servers in
// order, with their tools and health; an entry that cannot be made says why and does
// not stop the engine; the list is for admins only.
#include "tests/api/admin_client.h"
#include "tests/api/agentd_process.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

std::string tool_config(const TempDir& dir) {
  return dir.write("config.json", R"({
    "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
    "tool_servers": [
      {"name": "fixture", "type": "tool-fixture", "prefix": "f_", "timeout_ms": 2000},
      {"name": "refusing", "type": "tool-fixture", "refuse": true},
      {"name": "nowhere", "type": "no-such-plugin"},
      {"name": "talker", "type": "echo", "require_approval": "always"},
      {"name": "remote", "url": "https://user:s3cr3t@127.0.0.1:1/mcp?x=@", "headers":
        {"Authorization": {"source": "inline", "value": "Bearer hdr-s3cr3t"}}}
    ]
  })");
}

TEST(ToolServers, TheConfiguredServersAreListedWithToolsAndHealth) {
  TempDir config_dir;
  AgentdProcess agentd(with_args({"--config", tool_config(config_dir)}));
  const std::string admin = "Bearer " + first_admin_token(agentd);
  auto listed = agentd.request("GET", "/admin/tool-servers", "", {{"Authorization", admin}});
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json data = listed.json()["data"];
  ASSERT_EQ(data.size(), 5u) << listed.body;
  // Credentials in an entry are never shown.
  EXPECT_EQ(listed.body.find("s3cr3t"), std::string::npos) << listed.body;
  EXPECT_EQ(data[4]["url"], "https://***@127.0.0.1:1/mcp?x=@");
  EXPECT_EQ(data[4]["transport"], "http");

  EXPECT_EQ(data[0]["name"], "fixture");
  EXPECT_EQ(data[0]["source"], "config");
  EXPECT_EQ(data[0]["transport"], "in_process");
  EXPECT_EQ(data[0]["timeout_ms"], 2000);
  EXPECT_EQ(data[0]["require_approval"], "never");
  EXPECT_EQ(data[0]["healthy"], true) << data[0];
  ASSERT_EQ(data[0]["tools"].size(), 6u);
  EXPECT_EQ(data[0]["tools"][0], json({{"name", "f_add"}, {"description", "Adds a and b"}}));

  EXPECT_EQ(data[1]["healthy"], false);
  EXPECT_NE(data[1]["error"].get<std::string>().find("refused config"), std::string::npos);
  EXPECT_EQ(data[1]["tools"], json::array());
  EXPECT_NE(data[2]["error"].get<std::string>().find("no tool plugin named 'no-such-plugin'"),
            std::string::npos);
  EXPECT_NE(data[3]["error"].get<std::string>().find("is a provider plugin, not a tool plugin"),
            std::string::npos);
  EXPECT_EQ(data[3]["require_approval"], "always");

  EXPECT_EQ(agentd.request("GET", "/admin/tool-servers").status, 401);
  auto health = agentd.request("GET", "/health");  // the engine serves on
  EXPECT_EQ(health.status, 200);
}

}  // namespace
}  // namespace agentrt::test
