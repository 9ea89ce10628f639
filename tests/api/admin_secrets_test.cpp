// Secrets never leak: tokens and inline API keys appear in no log line and no response
// but the one that issues a token; state survives a restart on the same data dir; the
// first admin token is shown once only.
#include "tests/api/admin_client.h"
#include "tests/api/store_connection.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

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

}  // namespace
}  // namespace agentrt::test
