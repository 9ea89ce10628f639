// Loads the built auth-token plugin through the real plugin host, as agentd does, with
// a fresh data directory per test.
#pragma once

#include "core/plugin_host/plugin_host.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace agentrt::test {

using nlohmann::json;

// auth.db opened beside the plugin, as another process would.
class Sqlite {
 public:
  explicit Sqlite(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  }
  ~Sqlite() { sqlite3_close_v2(db_); }
  std::string text(const std::string& sql, const std::string& param = "") {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    if (!param.empty()) sqlite3_bind_text(s, 1, param.c_str(), -1, SQLITE_TRANSIENT);
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW)
      out.assign(static_cast<const char*>(sqlite3_column_blob(s, 0)),
                 static_cast<size_t>(sqlite3_column_bytes(s, 0)));
    sqlite3_finalize(s);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

// What a failing plugin call reported.
struct Failure {
  int32_t code = AGENTRT_OK;
  std::string message;
};

class AuthTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-auth-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_dir = pattern;
    core::PluginStatus status = host.load(AGENTRT_TEST_AUTH_TOKEN_PLUGIN);
    ASSERT_TRUE(status.loaded) << status.error;
    open();
  }
  void TearDown() override {
    auth.reset();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir, ignored);
  }

  void open() {
    auth = std::make_unique<core::PluginInstance>(host.find("auth-token"),
                                                  json{{"data_dir", data_dir}}.dump());
  }
  // As `agentd admin-token` makes it (ABI 1.6).
  void open_as_guest() {
    auth = std::make_unique<core::PluginInstance>(
        host.find("auth-token"), json{{"data_dir", data_dir}, {"guest", true}}.dump());
  }
  void close() { auth.reset(); }
  std::string db_path() const { return data_dir + "/auth.db"; }

  const agentrt_auth_vtable_t& table() const { return auth->plugin().auth_table(); }
  std::string raw(agentrt_json_call_fn fn, const std::string& request) const {
    return auth->call_json(fn, request);
  }
  json issue(const json& request) const { return json::parse(raw(table().issue, request.dump())); }
  json verify(const std::string& token) const {
    return json::parse(raw(table().verify, json{{"token", token}}.dump()));
  }
  json list(const json& request = json::object()) const {
    return json::parse(raw(table().list, request.dump()));
  }
  json revoke(const std::string& id) const {
    return json::parse(raw(table().revoke, json{{"id", id}}.dump()));
  }
  // A token for `actor` valid for an hour.
  json issue_for(const std::string& actor) const {
    return issue({{"ttl_s", 3600}, {"actor", actor}});
  }

  template <class Call>
  static Failure failure(Call&& call) {
    try {
      call();
    } catch (const core::PluginError& e) {
      return {e.code, e.what()};
    }
    ADD_FAILURE() << "the call succeeded";
    return {};
  }
  Failure verify_failure(const std::string& token) const {
    return failure([&] { verify(token); });
  }
  Failure raw_failure(agentrt_json_call_fn fn, const std::string& request) const {
    return failure([&] { raw(fn, request); });
  }

  std::string data_dir;
  core::PluginHost host;
  std::unique_ptr<core::PluginInstance> auth;
};

}  // namespace agentrt::test
