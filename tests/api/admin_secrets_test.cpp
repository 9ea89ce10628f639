// Secrets never leak: tokens and inline API keys appear in no log line and no response
// but the one that issues a token; state survives a restart on the same data dir; the
// first admin token is shown once only. Key references written over the API stay inside
// their fence (secrets.dir, secrets.env_prefix); the config file's go anywhere.
#include "tests/api/admin_client.h"
#include "tests/api/conversation_client.h"
#include "tests/api/store_connection.h"
#include "tests/fakes/fake_upstream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace agentrt::test {
namespace {

using nlohmann::json;

AgentdOptions on_data_dir(const std::string& dir, std::vector<std::string> extra = {}) {
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir};
  options.args.insert(options.args.end(), extra.begin(), extra.end());
  return options;
}

TEST(AdminSecrets, NoTokenOrInlineKeyInLogsOrResponses) {
  AgentdProcess agentd;
  std::string admin = first_admin_token(agentd);
  const std::string inline_key = "sk-inline-4c1f9e2b7a6d";
  std::string responses;
  auto record = [&](const HttpResponse& r) {
    responses += r.body;
    for (const auto& [name, value] : r.headers) responses += name + ": " + value + "\n";
    return r;
  };
  json provider = {{"providers",
                    {{{"name", "keyed"},
                      {"type", "echo"},
                      {"api_key_ref", {{"source", "inline"}, {"value", inline_key}}},
                      {"models", {{{"id", "keyed-model"}, {"context_window", 10}}}}}}}};
  auto saved = record(call(agentd, "POST", "/admin/shared-providers", admin, provider));
  ASSERT_EQ(saved.status, 200);
  EXPECT_EQ(saved.json()["data"][0]["api_key_ref"]["value"], "***");
  record(call(agentd, "GET", "/admin/shared-providers", admin));
  auto issued = call(agentd, "POST", "/admin/tokens", admin, {{"ttl", "1h"}, {"actor", "zed"}});
  std::string minted = issued.json()["token"];
  record(call(agentd, "GET", "/admin/tokens", admin));
  record(call(agentd, "GET", "/admin/cells", minted));
  record(call(agentd, "GET", "/admin/cells", admin + "x"));
  record(call(agentd, "POST", "/admin/shared-providers", admin, {{"providers", "broken"}}));
  ASSERT_EQ(agentd.stop(), 0);

  for (const std::string& secret : {admin, minted, inline_key}) {
    EXPECT_EQ(responses.find(secret), std::string::npos) << "a response carries a secret";
    for (const json& line : agentd.log_lines())
      EXPECT_EQ(line.dump().find(secret), std::string::npos) << line.dump();
  }
  // The one place the first admin token may appear: the one-time banner, once.
  std::string err = agentd.stderr_text();
  EXPECT_EQ(err.find(minted), std::string::npos);
  EXPECT_EQ(err.find(inline_key), std::string::npos);
  size_t first = err.find(admin);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(err.find(admin, first + 1), std::string::npos);
}

TEST(AdminSecrets, StateSurvivesARestartAndTheAdminTokenIsNotShownAgain) {
  TempDir dir;
  std::string admin, minted;
  {
    AgentdProcess agentd(on_data_dir(dir.path()));
    admin = first_admin_token(agentd);
    ASSERT_FALSE(admin.empty());
    struct stat info {};
    ASSERT_EQ(::stat((dir.path() + "/admin.token").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    minted =
        issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "yan"}, {"admin", true}})["token"];
    ASSERT_EQ(call(agentd, "PATCH", "/admin/cells/default", admin, {{"locale", "de-DE"}}).status,
              200);
    json provider = {{"providers",
                      {{{"name", "kept"},
                        {"type", "echo"},
                        {"models", {{{"id", "kept-model"}, {"context_window", 10}}}}}}}};
    ASSERT_EQ(call(agentd, "POST", "/admin/shared-providers", admin, provider).status, 200);
    ASSERT_EQ(agentd.stop(), 0);
  }
  AgentdProcess again(on_data_dir(dir.path()));
  EXPECT_EQ(again.stderr_text().find("art_"), std::string::npos) << "admin token shown twice";
  EXPECT_EQ(call(again, "GET", "/admin/cells/default", admin).json()["locale"], "de-DE");
  EXPECT_EQ(call(again, "GET", "/admin/cells/default", minted).status, 200);
  auto providers = call(again, "GET", "/admin/shared-providers", admin).json()["data"];
  ASSERT_EQ(providers.size(), 1u);
  EXPECT_EQ(providers[0]["models"][0]["id"], "kept-model");
}

TEST(AdminSecrets, MultiCellModeShowsTheTokenOnceWithoutWritingAFile) {
  AgentdProcess agentd(with_args({"--mode", "multi"}));
  std::string admin = first_admin_token(agentd);
  ASSERT_FALSE(admin.empty());
  EXPECT_FALSE(std::ifstream(agentd.data_dir() + "/admin.token").good());
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", admin).status, 200);
}

TEST(AdminSecrets, AdminTokenVerbMintsAWorkingTokenWhileServing) {
  TempDir dir;
  AgentdProcess agentd(on_data_dir(dir.path()));
  auto result = run_agentd({"admin-token", "--data-dir", dir.path()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::string fresh = result.out.substr(0, result.out.find('\n'));
  EXPECT_EQ(fresh.rfind("art_", 0), 0u);
  EXPECT_EQ(result.err.find(fresh), std::string::npos);
  EXPECT_NE(fresh, first_admin_token(agentd));
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", fresh).status, 200);
}

// A data dir that no agentd served (a typo) gets no store of its own and no token that
// opens nothing, rather than a token printed, exit 0, and three databases left behind.
TEST(AdminSecrets, AdminTokenVerbRefusesADataDirWithoutState) {
  TempDir dir;
  const std::string typo = dir.path() + "/agentrt-dta";
  auto result = run_agentd({"admin-token", "--data-dir", typo});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_NE(result.err.find("no agentd state in '" + typo + "'"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(typo));
}

// `agentd admin-token` of a newer build beside an older agentd (after a package upgrade,
// before the restart) must not upgrade the stores under it: a live /chat would stall for
// 5 s, and the old build would refuse the data dir at its next start. It refuses a store
// older than itself, and writes nothing.
TEST(AdminSecrets, AdminTokenVerbUpgradesNoStore) {
  TempDir dir;
  {
    AgentdProcess agentd(on_data_dir(dir.path()));
    ASSERT_EQ(agentd.stop(), 0);
  }
  StoreConnection state(dir.path() + "/state.db");
  const int64_t newest = state.count("SELECT max(version) FROM schema_migrations");
  state.exec("DELETE FROM schema_migrations WHERE version = " + std::to_string(newest));
  auto refused = run_agentd({"admin-token", "--data-dir", dir.path()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  EXPECT_NE(refused.err.find("older than this agentd"), std::string::npos) << refused.err;
  EXPECT_EQ(state.count("SELECT count(*) FROM schema_migrations WHERE version = " +
                        std::to_string(newest)),
            0)
      << "not upgraded";
  state.exec("INSERT INTO schema_migrations VALUES(" + std::to_string(newest) +
             ", 'put back', 'now')");

  StoreConnection auth(dir.path() + "/auth.db");
  const int64_t auth_version = auth.count("PRAGMA user_version");
  const int64_t tokens = auth.count("SELECT count(*) FROM tokens");
  auth.exec("PRAGMA user_version = " + std::to_string(auth_version - 1));
  refused = run_agentd({"admin-token", "--data-dir", dir.path()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("older than this plugin's"), std::string::npos) << refused.err;
  EXPECT_EQ(auth.count("PRAGMA user_version"), auth_version - 1);
  EXPECT_EQ(auth.count("SELECT count(*) FROM tokens"), tokens);
  auth.exec("PRAGMA user_version = " + std::to_string(auth_version));
  auto minted = run_agentd({"admin-token", "--data-dir", dir.path()});
  EXPECT_EQ(minted.exit_code, 0) << minted.err;
  EXPECT_EQ(auth.count("SELECT count(*) FROM tokens"), tokens + 1);
}

// Run on a multi-cell data dir without --mode multi, a start that makes cells would make
// a cell "default" there: a guest makes no cell.
TEST(AdminSecrets, AdminTokenVerbMakesNoCell) {
  TempDir dir;
  AgentdProcess agentd(on_data_dir(dir.path(), {"--mode", "multi"}));
  std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  auto result = run_agentd({"admin-token", "--data-dir", dir.path()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto cells = call(agentd, "GET", "/admin/cells", admin).json()["data"];
  ASSERT_EQ(cells.size(), 1u) << cells.dump();
  EXPECT_EQ(cells[0]["id"], "acme");
  StoreConnection state(dir.path() + "/state.db");
  EXPECT_EQ(state.count("SELECT count(*) FROM cells WHERE id = 'default'"), 0);
}

// The fence. agentd runs with a config file whose secrets.dir is a directory of the
// test's, and an openai shared provider points at a fake upstream that records what it
// receives.
constexpr const char* kFenceOutsideKey = "sk-outside-the-fence-5d1e8a";
constexpr const char* kFenceFileKey = "sk-inside-file-7b2f90";
constexpr const char* kFenceEnvKey = "sk-inside-env-c3a461";

class SecretFence : public ::testing::Test {
 protected:
  SecretFence() {
    std::filesystem::create_directory(secrets_dir());
    outside = outside_dir.write("outside.key", std::string(kFenceOutsideKey) + "\n");
    fake.set_default(Reply::answer("fenced", 1));
  }
  std::string secrets_dir() const { return fence_dir.path() + "/secrets"; }
  AgentdOptions options() const {
    AgentdOptions options = with_args(
        {"--config",
         fence_dir.write("config.json", json{{"secrets", {{"dir", secrets_dir()}}}}.dump())});
    options.env["AGENTRT_SECRET_OPENAI_KEY"] = kFenceEnvKey;
    options.env["OPENAI_UNFENCED_KEY"] = kFenceOutsideKey;
    return options;
  }
  json provider(const std::string& name, const json& ref) const {
    return {{"name", name},
            {"type", "openai"},
            {"base_url", fake.base_url()},
            {"api_key_ref", ref},
            {"models", {{{"id", name + "-model"}, {"context_window", 4096}}}}};
  }
  HttpResponse save(const json& ref, const std::string& name = "fenced") {
    return call(agentd, "POST", "/admin/shared-providers", admin,
                {{"providers", {provider(name, ref)}}});
  }
  // A refusal: 400 naming the rule, with neither the outside key nor its file's content.
  void expect_refused(const json& ref, const std::string& rule) {
    SCOPED_TRACE(ref.dump());
    auto refused = save(ref);
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_EQ(refused.json()["error"]["code"], "invalid_request");
    const std::string message = refused.json()["error"]["message"];
    EXPECT_NE(message.find("providers[0].api_key_ref.value"), std::string::npos) << message;
    EXPECT_NE(message.find(rule), std::string::npos) << message;
    EXPECT_EQ(refused.body.find(kFenceOutsideKey), std::string::npos) << refused.body;
  }
  HttpResponse chat(const std::string& model) {
    return call(agentd, "POST", "/chat", admin, run_body("hi", {{"model", model}}));
  }
  std::vector<std::string> keys_received() const {
    std::vector<std::string> keys;
    for (const RecordedRequest& request : fake.requests())
      keys.push_back(request.header("authorization"));
    return keys;
  }

  TempDir fence_dir, outside_dir;
  std::string outside;
  FakeUpstream fake{Vendor::openai};
  AgentdProcess agentd{options()};
  std::string admin = first_admin_token(agentd);
};

TEST_F(SecretFence, AFileOutsideTheSecretsDirIsRefusedAndNothingReachesTheUpstream) {
  expect_refused({{"source", "file"}, {"value", outside}}, "inside the secrets directory");
  expect_refused({{"source", "file"}, {"value", "../../" + outside.substr(1)}}, "'..'");
  expect_refused({{"source", "file"}, {"value", secrets_dir() + "/../outside.key"}}, "'..'");
  expect_refused({{"source", "file"}, {"value", "missing.key"}}, "a file that exists");
  expect_refused({{"source", "file"}, {"value", "/proc/self/environ"}},
                 "inside the secrets directory");
  EXPECT_EQ(chat("fenced-model").status, 400);  // no provider offers it
  EXPECT_EQ(call(agentd, "GET", "/admin/shared-providers", admin).json()["data"], json::array());
  EXPECT_EQ(fake.request_count(), 0u);
  ASSERT_EQ(agentd.stop(), 0);
  EXPECT_EQ(agentd.stderr_text().find(kFenceOutsideKey), std::string::npos);
}

TEST_F(SecretFence, ALinkInsideTheSecretsDirThatLeadsOutIsRefused) {
  std::filesystem::create_symlink(outside, secrets_dir() + "/link.key");
  expect_refused({{"source", "file"}, {"value", "link.key"}}, "symbolic link");
  std::filesystem::create_directory_symlink(outside_dir.path(), secrets_dir() + "/sub");
  expect_refused({{"source", "file"}, {"value", "sub/outside.key"}}, "symbolic link");
  EXPECT_EQ(fake.request_count(), 0u);
}

TEST_F(SecretFence, AnEnvironmentVariableWithoutThePrefixIsRefused) {
  expect_refused({{"source", "env"}, {"value", "OPENAI_UNFENCED_KEY"}},
                 "starts with 'AGENTRT_SECRET_' (secrets.env_prefix)");
  expect_refused({{"source", "env"}, {"value", "AGENTRT_SECRET_"}}, "AGENTRT_SECRET_");
  // A tool server's header references are held to the same fence.
  auto refused =
      call(agentd, "POST", "/admin/tool-servers", admin,
           {{"servers",
             {{{"name", "remote"},
               {"type", "mcp"},
               {"url", "http://127.0.0.1:1/mcp"},
               {"headers", {{"X-Key", {{"source", "env"}, {"value", "OPENAI_UNFENCED_KEY"}}}}}}}}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("servers[0].headers.X-Key.value"), std::string::npos);
  EXPECT_NE(refused.body.find("secrets.env_prefix"), std::string::npos);
  EXPECT_EQ(fake.request_count(), 0u);
}

TEST_F(SecretFence, AFileInsideAndAPrefixedVariableReachTheUpstream) {
  std::ofstream(secrets_dir() + "/openai.key") << kFenceFileKey << "\n";
  ASSERT_EQ(save({{"source", "file"}, {"value", "openai.key"}}, "by-file").status, 200);
  ASSERT_EQ(save({{"source", "file"}, {"value", secrets_dir() + "/openai.key"}}, "by-path").status,
            200);
  ASSERT_EQ(save({{"source", "env"}, {"value", "AGENTRT_SECRET_OPENAI_KEY"}}, "by-env").status,
            200);
  for (const char* model : {"by-file-model", "by-path-model", "by-env-model"}) {
    auto answered = chat(model);
    EXPECT_EQ(answered.status, 200) << model << ": " << answered.body;
  }
  EXPECT_EQ(keys_received(), (std::vector<std::string>{std::string("Bearer ") + kFenceFileKey,
                                                       std::string("Bearer ") + kFenceFileKey,
                                                       std::string("Bearer ") + kFenceEnvKey}));
}

// The check is made again at every lookup: a key file swapped for a link that leads out
// after the provider was saved sends nothing, and the log says why.
TEST_F(SecretFence, AFileSwappedForALinkOutAfterItWasSavedDoesNotResolve) {
  const std::string key = secrets_dir() + "/swapped.key";
  std::ofstream(key) << kFenceFileKey << "\n";
  ASSERT_EQ(save({{"source", "file"}, {"value", "swapped.key"}}).status, 200);
  ASSERT_EQ(chat("fenced-model").status, 200);
  std::filesystem::remove(key);
  std::filesystem::create_symlink(outside, key);
  auto refused = chat("fenced-model");
  EXPECT_GE(refused.status, 500) << refused.body;
  EXPECT_NE(refused.body.find("agentd's log says why"), std::string::npos) << refused.body;
  EXPECT_TRUE(agentd.wait_for_log([](const json& line) {
    return line.value("msg", "") == "a secret reference did not resolve" &&
           line.value("reason", "").find("symbolic link") != std::string::npos;
  })) << agentd.stderr_text();
  EXPECT_EQ(keys_received(), std::vector<std::string>{std::string("Bearer ") + kFenceFileKey});
  ASSERT_EQ(agentd.stop(), 0);
  EXPECT_EQ(agentd.stderr_text().find(kFenceOutsideKey), std::string::npos);
}

// A reference stored before the fence existed, pointing outside it, is not resolved: the
// start logs which provider breaks which rule, and each call fails with the log's word.
TEST_F(SecretFence, AStoredReferenceOutsideTheFenceDoesNotResolveAfterARestart) {
  std::ofstream(secrets_dir() + "/openai.key") << kFenceFileKey << "\n";
  ASSERT_EQ(save({{"source", "file"}, {"value", "openai.key"}}).status, 200);
  ASSERT_EQ(agentd.stop(), 0);
  StoreConnection(agentd.data_dir() + "/state.db")
      .exec("UPDATE shared_providers SET api_key_ref = '" +
            json{{"source", "file"}, {"value", outside}}.dump() + "'");
  AgentdOptions again_options = options();
  again_options.private_data_dir = false;
  again_options.args.insert(again_options.args.end(), {"--data-dir", agentd.data_dir()});
  AgentdProcess again(again_options);
  EXPECT_TRUE(again.wait_for_log([](const json& line) {
    return line.value("msg", "").find("breaks the secrets fence") != std::string::npos &&
           line.value("provider", "") == "fenced";
  })) << again.stderr_text();
  auto refused = call(again, "POST", "/chat", admin, run_body("hi", {{"model", "fenced-model"}}));
  EXPECT_GE(refused.status, 500) << refused.body;
  EXPECT_NE(refused.body.find("agentd's log says why"), std::string::npos) << refused.body;
  EXPECT_EQ(fake.request_count(), 0u);
  ASSERT_EQ(again.stop(), 0);
  EXPECT_EQ(again.stderr_text().find(kFenceOutsideKey), std::string::npos);
}

// The config file is the operator's: its providers may name any file and any variable.
TEST(SecretFenceConfig, TheConfigFilesProvidersNameAnyFileAndVariable) {
  TempDir dir;
  FakeUpstream openai(Vendor::openai), anthropic(Vendor::anthropic);
  const std::string key_file = dir.write("anywhere.key", "sk-config-file-41d7\n");
  const json config = {
      {"plugins",
       {{"openai",
         {{"config",
           {{"base_url", openai.base_url()},
            {"api_key_ref", {{"source", "file"}, {"value", key_file}}},
            {"models", {{{"id", "cfg-openai"}, {"context_window", 4096}}}}}}}},
        {"anthropic",
         {{"config",
           {{"base_url", anthropic.base_url()},
            {"api_key_ref", {{"source", "env"}, {"value", "CONFIG_ANTHROPIC_KEY"}}},
            {"models", {{{"id", "cfg-anthropic"}, {"context_window", 4096}}}}}}}}}}};
  AgentdOptions options = with_args({"--config", dir.write("config.json", config.dump())});
  options.env["CONFIG_ANTHROPIC_KEY"] = "sk-config-env-93be";
  AgentdProcess agentd(options);
  const std::string admin = first_admin_token(agentd);
  for (const char* model : {"cfg-openai", "cfg-anthropic"}) {
    auto answered = call(agentd, "POST", "/chat", admin, run_body("hi", {{"model", model}}));
    EXPECT_EQ(answered.status, 200) << model << ": " << answered.body;
  }
  ASSERT_EQ(openai.request_count(), 1u);
  EXPECT_EQ(openai.last_request().header("authorization"), "Bearer sk-config-file-41d7");
  ASSERT_EQ(anthropic.request_count(), 1u);
  EXPECT_EQ(anthropic.last_request().header("x-api-key"), "sk-config-env-93be");
}

// Without a config file there is no config dir: the data dir holds the secrets dir.
TEST(SecretFenceConfig, WithoutAConfigFileTheSecretsDirIsInTheDataDir) {
  FakeUpstream fake(Vendor::openai);
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  std::filesystem::create_directory(agentd.data_dir() + "/secrets");
  std::ofstream(agentd.data_dir() + "/secrets/k") << "sk-data-dir-5a0c\n";
  auto saved = call(agentd, "POST", "/admin/shared-providers", admin,
                    {{"providers",
                      {{{"name", "dd"},
                        {"type", "openai"},
                        {"base_url", fake.base_url()},
                        {"api_key_ref", {{"source", "file"}, {"value", "k"}}},
                        {"models", {{{"id", "dd-model"}, {"context_window", 4096}}}}}}}});
  ASSERT_EQ(saved.status, 200) << saved.body;
  ASSERT_EQ(call(agentd, "POST", "/chat", admin, run_body("hi", {{"model", "dd-model"}})).status,
            200);
  EXPECT_EQ(fake.last_request().header("authorization"), "Bearer sk-data-dir-5a0c");
  const CommandResult checked = run_agentd({"check-config", "--data-dir", agentd.data_dir()});
  EXPECT_NE(checked.out.find("secrets: dir=" + agentd.data_dir() + "/secrets"), std::string::npos)
      << checked.out << checked.err;
}

}  // namespace
}  // namespace agentrt::test
