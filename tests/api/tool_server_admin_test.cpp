// POST and DELETE /admin/tool-servers against the real agentd: a server saved over the
// API is listed with source "api" and its header references masked as providers' keys
// are, reaches its MCP server with the resolved values, is replaced by name, deleted
// (ending its session), kept across a restart; bad input is 400 with nothing stored, and
// the config file's names and stdio servers stay the config file's.
#include "tests/api/admin_client.h"
#include "tests/api/fake_mcp_http.h"
#include "tests/mcp/reference_servers.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace agentrt::test {
namespace {

using nlohmann::json;

constexpr const char* kInlineSecret = "Bearer tok-5e3c9a71d2f04b86";
constexpr const char* kEnvSecret = "env-secret-91b2c7d4e6a8";

json inline_ref(const std::string& value) {
  return {{"source", "inline"}, {"value", value}};
}

json server(const std::string& name, const std::string& url, json extra = json::object()) {
  json entry = {{"name", name}, {"type", "mcp"}, {"url", url}};
  entry.update(extra);
  return entry;
}

json servers(std::initializer_list<json> entries) {
  json list = json::array();
  for (const json& entry : entries) list.push_back(entry);
  return {{"servers", list}};
}

// The listed server of `name`, or null.
json listed(const HttpResponse& response, const std::string& name) {
  for (const json& entry : response.json()["data"])
    if (entry["name"] == name) return entry;
  return nullptr;
}

AgentdOptions with_mcp_key(AgentdOptions options = {}) {
  options.env["AGENTRT_SECRET_MCP_TEST_KEY"] = kEnvSecret;
  return options;
}

class ToolServerAdmin : public ::testing::Test {
 protected:
  HttpResponse post(const json& body) {
    return record(call(agentd, "POST", "/admin/tool-servers", admin, body));
  }
  HttpResponse get() { return record(call(agentd, "GET", "/admin/tool-servers", admin)); }
  HttpResponse remove(const std::string& name) {
    return record(call(agentd, "DELETE", "/admin/tool-servers/" + name, admin));
  }
  HttpResponse record(HttpResponse response) {
    responses += response.body;
    return response;
  }
  // Neither secret in any response so far, nor in agentd's log.
  void expect_no_secret() {
    for (const std::string secret : {kInlineSecret, kEnvSecret, "tok-5e3c9a71d2f04b86"}) {
      EXPECT_EQ(responses.find(secret), std::string::npos) << "a response carries " << secret;
      EXPECT_EQ(agentd.stderr_text().find(secret), std::string::npos) << "the log has " << secret;
    }
  }

  FakeMcpHttp mcp;
  AgentdProcess agentd{with_mcp_key()};
  std::string admin = first_admin_token(agentd);
  std::string responses;
};

TEST_F(ToolServerAdmin, ASavedServerIsListedMaskedAndReachedWithTheResolvedHeaders) {
  const json headers = {
      {"Authorization", inline_ref(kInlineSecret)},
      {"X-Api-Key", {{"source", "env"}, {"value", "AGENTRT_SECRET_MCP_TEST_KEY"}}}};
  auto saved = post(servers({server("lookup", mcp.url(), {{"headers", headers}})}));
  ASSERT_EQ(saved.status, 200) << saved.body;
  const json entry = listed(saved, "lookup");
  ASSERT_TRUE(entry.is_object()) << saved.body;
  EXPECT_EQ(entry["source"], "api");
  EXPECT_EQ(entry["type"], "mcp");
  EXPECT_EQ(entry["transport"], "http");
  EXPECT_EQ(entry["url"], mcp.url());
  EXPECT_EQ(entry["require_approval"], "never");
  EXPECT_EQ(entry["timeout_ms"], 60000);
  EXPECT_EQ(entry["headers"]["Authorization"], inline_ref("***"));
  EXPECT_EQ(entry["headers"]["X-Api-Key"], headers["X-Api-Key"]);  // a name, no secret
  EXPECT_EQ(entry["healthy"], true) << entry;
  EXPECT_EQ(entry["tools"],
            json::array({{{"name", "lookup"}, {"description", "Looks things up"}}}));
  EXPECT_FALSE(entry["created_at"].get<std::string>().empty());
  EXPECT_EQ(listed(get(), "lookup"), entry);

  // The plugin resolved both references and sent their values.
  EXPECT_TRUE(mcp.wait_for([](const FakeMcpHttp::Request& r) {
    return r.rpc_method == "tools/list" && r.headers.count("authorization") &&
           r.headers.at("authorization") == kInlineSecret && r.headers.count("x-api-key") &&
           r.headers.at("x-api-key") == kEnvSecret;
  }));
  ASSERT_EQ(agentd.stop(), 0);
  expect_no_secret();
}

TEST_F(ToolServerAdmin, AnUpdateByNameReplacesTheServerInItsPlace) {
  ASSERT_EQ(post(servers({server("first", mcp.url())})).status, 200);
  ASSERT_EQ(post(servers({server("second", "http://127.0.0.1:1/mcp")})).status, 200);
  const json before = listed(get(), "first");
  auto updated = post(servers({server("first", mcp.url(),
                                      {{"require_approval", "always"},
                                       {"timeout_ms", 5000},
                                       {"headers", {{"X-Token", inline_ref("second-value")}}}})}));
  ASSERT_EQ(updated.status, 200) << updated.body;
  const json data = updated.json()["data"];
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0]["name"], "first");  // where it was
  EXPECT_EQ(data[0]["require_approval"], "always");
  EXPECT_EQ(data[0]["timeout_ms"], 5000);
  EXPECT_EQ(data[0]["headers"]["X-Token"], inline_ref("***"));
  EXPECT_EQ(data[0]["created_at"], before["created_at"]);
  EXPECT_GE(data[0]["updated_at"].get<std::string>(), before["updated_at"].get<std::string>());
  // The new instance speaks with the new header; the old one ended its session.
  EXPECT_TRUE(mcp.wait_for([](const FakeMcpHttp::Request& r) {
    return r.headers.count("x-token") && r.headers.at("x-token") == "second-value";
  }));
  EXPECT_TRUE(
      mcp.wait_for([](const FakeMcpHttp::Request& r) { return r.http_method == "DELETE"; }));
}

TEST_F(ToolServerAdmin, ADeleteRemovesTheServerAndEndsItsSession) {
  ASSERT_EQ(post(servers({server("doomed", mcp.url())})).status, 200);
  auto removed = remove("doomed");
  EXPECT_EQ(removed.status, 204) << removed.body;
  EXPECT_TRUE(get().json()["data"].empty());
  EXPECT_TRUE(mcp.wait_for([](const FakeMcpHttp::Request& r) {
    return r.http_method == "DELETE" && r.headers.count("mcp-session-id") &&
           r.headers.at("mcp-session-id") == "fake-session-1";
  }));
  auto again = remove("doomed");
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(again.json()["error"]["code"], "not_found");
  EXPECT_EQ(remove("never-was").status, 404);
}

TEST_F(ToolServerAdmin, AnUnreachableServerIsSavedAndListedNotHealthy) {
  auto saved = post(servers({server("away", "http://127.0.0.1:1/mcp")}));
  ASSERT_EQ(saved.status, 200) << saved.body;
  const json entry = listed(saved, "away");
  EXPECT_EQ(entry["healthy"], false);
  EXPECT_NE(entry["error"].get<std::string>().find("unreachable"), std::string::npos) << entry;
  EXPECT_EQ(entry["tools"], json::array());
}

// Every bad entry, alone or beside a good one, is 400 naming the field, and nothing of
// the request is stored.
TEST_F(ToolServerAdmin, EveryBadInputIs400AndStoresNothing) {
  const std::string url = mcp.url();
  const json good = server("good", url);
  struct Case {
    json body;
    std::string field;  // in the message
  };
  const std::vector<Case> cases = {
      {json::array(), "request body"},
      {json::object(), "servers"},
      {{{"servers", json::array()}}, "servers"},
      {{{"servers", "lookup"}}, "servers"},
      {{{"servers", {good}}, {"extra", 1}}, "extra"},
      {servers({"lookup"}), "servers[0]"},
      {servers({{{"type", "mcp"}, {"url", url}}}), "servers[0].name"},
      {servers({server("bad name", url)}), "servers[0].name"},
      {servers({server(std::string(65, 'a'), url)}), "servers[0].name"},
      {servers({server("", url)}), "servers[0].name"},
      {servers({{{"name", "x"}, {"url", url}}}), "servers[0].type"},
      {servers({server("x", url, {{"type", "stdio"}})}), "servers[0].type"},
      {servers({{{"name", "x"}, {"type", "mcp"}}}), "servers[0].url"},
      {servers({server("x", "ftp://127.0.0.1/mcp")}), "servers[0].url"},
      {servers({server("x", "http://")}), "servers[0].url"},
      {servers({server("x", "http://user:pw@127.0.0.1/mcp")}), "servers[0].url"},
      {servers({server("x", "http://127.0.0.1/a b")}), "servers[0].url"},
      {servers({server("x", url, {{"headers", "Bearer abc"}})}), "servers[0].headers"},
      {servers({server("x", url, {{"headers", {{"Bad Header", inline_ref("v")}}}})}),
       "servers[0].headers.Bad Header"},
      {servers({server("x", url, {{"headers", {{"Content-Type", inline_ref("v")}}}})}),
       "servers[0].headers.Content-Type"},
      {servers(
           {server("x", url, {{"headers", {{"X-A", inline_ref("v")}, {"x-a", inline_ref("w")}}}})}),
       "servers[0].headers.x-a"},
      {servers({server("x", url, {{"headers", {{"Authorization", "Bearer abc"}}}})}),
       "servers[0].headers.Authorization"},
      {servers({server("x", url,
                       {{"headers", {{"Authorization", {{"source", "vault"}, {"value", "k"}}}}}})}),
       "servers[0].headers.Authorization.source"},
      {servers({server("x", url, {{"headers", {{"Authorization", inline_ref("")}}}})}),
       "servers[0].headers.Authorization.value"},
      {servers(
           {server("x", url,
                   {{"headers",
                     {{"Authorization", {{"source", "inline"}, {"value", "k"}, {"note", 1}}}}}})}),
       "servers[0].headers.Authorization.note"},
      {servers({server("x", url, {{"require_approval", "sometimes"}})}),
       "servers[0].require_approval"},
      {servers({server("x", url, {{"timeout_ms", 50}})}), "servers[0].timeout_ms"},
      {servers({server("x", url, {{"timeout_ms", 3600001}})}), "servers[0].timeout_ms"},
      {servers({server("x", url, {{"timeout_ms", "1000"}})}), "servers[0].timeout_ms"},
      {servers({server("x", url, {{"timeout_ms", 1.5}})}), "servers[0].timeout_ms"},
      {servers({server("x", url, {{"prefix", "p_"}})}), "servers[0].prefix"},
      {servers({good, server("bad", "not a url")}), "servers[1].url"},
      {servers({good, server("good", url)}), "servers[1].name"},
      // A reference that does not resolve: the plugin refuses it when it is made.
      {servers(
           {good, server("x", url,
                         {{"headers",
                           {{"X-Key",
                             {{"source", "env"}, {"value", "AGENTRT_SECRET_MCP_TEST_UNSET"}}}}}})}),
       "servers[1]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.dump());
    auto refused = post(c.body);
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_EQ(refused.json()["error"]["code"], "invalid_request");
    const std::string message = refused.json()["error"]["message"];
    EXPECT_NE(message.find(c.field), std::string::npos) << message;
    EXPECT_EQ(message.find("Bearer abc"), std::string::npos) << message;
  }
  EXPECT_EQ(get().json()["data"], json::array());
}

TEST_F(ToolServerAdmin, AServerThatRunsACommandIsRefused) {
  const json stdio = {{"name", "local"}, {"type", "mcp"}, {"command", {"node", "server.js"}}};
  for (const auto& [field, value] : std::vector<std::pair<std::string, json>>{
           {"command", {"node", "server.js"}}, {"env", {{"A", "1"}}}, {"cwd", "/tmp"}}) {
    json entry = server("local", mcp.url());
    entry[field] = value;
    for (const json& body : {servers({entry}), servers({stdio})}) {
      auto refused = post(body);
      EXPECT_EQ(refused.status, 400) << refused.body;
      const std::string message = refused.json()["error"]["message"];
      EXPECT_NE(message.find("never starts a process"), std::string::npos) << message;
      EXPECT_NE(message.find("config file"), std::string::npos) << message;
    }
  }
  EXPECT_EQ(get().json()["data"], json::array());
}

TEST(ToolServerAdminConfig, TheConfigFilesNamesStayItsOwn) {
  TempDir config_dir;
  const std::string config = config_dir.write("config.json", R"({
    "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
    "tool_servers": [{"name": "fixture", "type": "tool-fixture", "prefix": "f_"}]
  })");
  AgentdProcess agentd(with_args({"--config", config}));
  const std::string admin = first_admin_token(agentd);
  auto taken = call(agentd, "POST", "/admin/tool-servers", admin,
                    servers({server("fixture", "http://127.0.0.1:1/mcp")}));
  EXPECT_EQ(taken.status, 409) << taken.body;
  EXPECT_EQ(taken.json()["error"]["code"], "conflict");
  EXPECT_NE(taken.json()["error"]["message"].get<std::string>().find("config file"),
            std::string::npos);
  auto kept = call(agentd, "DELETE", "/admin/tool-servers/fixture", admin);
  EXPECT_EQ(kept.status, 409) << kept.body;
  EXPECT_NE(kept.json()["error"]["message"].get<std::string>().find("config file"),
            std::string::npos);
  const json data = call(agentd, "GET", "/admin/tool-servers", admin).json()["data"];
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0]["source"], "config");
  EXPECT_EQ(data[0]["healthy"], true);
}

TEST(ToolServerAdminRestart, ASavedServerSurvivesARestart) {
  FakeMcpHttp mcp;
  TempDir dir;
  AgentdOptions options = with_mcp_key();
  options.private_data_dir = false;
  options.args = {"--data-dir", dir.path()};
  std::string admin;
  json saved;
  {
    AgentdProcess agentd(options);
    admin = first_admin_token(agentd);
    const json headers = {
        {"X-Api-Key", {{"source", "env"}, {"value", "AGENTRT_SECRET_MCP_TEST_KEY"}}}};
    auto response = call(agentd, "POST", "/admin/tool-servers", admin,
                         servers({server("kept", mcp.url(), {{"headers", headers}})}));
    ASSERT_EQ(response.status, 200) << response.body;
    saved = listed(response, "kept");
    ASSERT_EQ(agentd.stop(), 0);
  }
  AgentdProcess again(options);
  auto response = call(again, "GET", "/admin/tool-servers", admin);
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(listed(response, "kept"), saved);
  EXPECT_EQ(response.body.find(kEnvSecret), std::string::npos);
}

// A config that later takes the name of a saved server wins: the saved one is logged and
// not served, and a delete still removes it (then the name is the config's alone).
TEST(ToolServerAdminRestart, AConfigThatTakesASavedNameWins) {
  TempDir dir, config_dir;
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir.path()};
  std::string admin;
  {
    AgentdProcess agentd(options);
    admin = first_admin_token(agentd);
    ASSERT_EQ(call(agentd, "POST", "/admin/tool-servers", admin,
                   servers({server("fixture", "http://127.0.0.1:1/mcp")}))
                  .status,
              200);
    ASSERT_EQ(agentd.stop(), 0);
  }
  options.args.push_back("--config");
  options.args.push_back(config_dir.write("config.json", R"({
    "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
    "tool_servers": [{"name": "fixture", "type": "tool-fixture"}]
  })"));
  AgentdProcess again(options);
  const json data = call(again, "GET", "/admin/tool-servers", admin).json()["data"];
  ASSERT_EQ(data.size(), 1u) << data;
  EXPECT_EQ(data[0]["source"], "config");
  EXPECT_TRUE(again.wait_for_log([](const json& line) {
    return line.value("msg", "").find("not served") != std::string::npos &&
           line.value("name", "") == "fixture";
  })) << again.stderr_text();
  EXPECT_EQ(call(again, "DELETE", "/admin/tool-servers/fixture", admin).status, 204);
  EXPECT_EQ(call(again, "DELETE", "/admin/tool-servers/fixture", admin).status, 409);
  EXPECT_EQ(call(again, "GET", "/admin/tool-servers", admin).json()["data"].size(), 1u);
}

// An operator who disables the mcp plugin forbids the servers an admin would add.
TEST(ToolServerAdminConfig, ADisabledMcpPluginRefusesEveryServer) {
  TempDir config_dir;
  const std::string config =
      config_dir.write("config.json", R"({"plugins": {"mcp": {"enabled": false}}})");
  AgentdProcess agentd(with_args({"--config", config}));
  const std::string admin = first_admin_token(agentd);
  auto refused = call(agentd, "POST", "/admin/tool-servers", admin,
                      servers({server("x", "http://127.0.0.1:1/mcp")}));
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.json()["error"]["message"].get<std::string>().find("disabled"),
            std::string::npos);
  EXPECT_EQ(call(agentd, "GET", "/admin/tool-servers", admin).json()["data"], json::array());
}

// server-everything, the MCP project's reference server, over streamable HTTP: the tools
// of a server saved over the API are listed.
TEST(ToolServerAdminReference, ServerEverythingsToolsAreListed) {
  if (!mcp_reference::servers_missing().empty()) GTEST_SKIP() << mcp_reference::servers_missing();
  mcp_reference::EverythingHttp everything;
  const std::string why = everything.start();
  ASSERT_TRUE(why.empty()) << why;
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  auto saved = call(agentd, "POST", "/admin/tool-servers", admin,
                    servers({server("everything", everything.url())}));
  ASSERT_EQ(saved.status, 200) << saved.body;
  const json entry = listed(call(agentd, "GET", "/admin/tool-servers", admin), "everything");
  EXPECT_EQ(entry["healthy"], true) << entry;
  std::vector<std::string> names;
  for (const json& tool : entry["tools"]) names.push_back(tool["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "echo"), names.end()) << entry;
}

}  // namespace
}  // namespace agentrt::test
