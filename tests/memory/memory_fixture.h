// Loads the built memory-sqlite plugin through the real plugin host, as agentd does,
// with a fresh data directory per test, and wraps each operation as a JSON call.
#pragma once

#include "core/plugin_host/plugin_host.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::test {

using nlohmann::json;

inline const std::vector<std::string> kLayers = {
    "environment", "consensus", "about_me", "agent_memory", "session", "working", "unknown"};

// What a failing plugin call reported.
struct Failure {
  int32_t code = AGENTRT_OK;
  std::string message;
};

// {"cell","actor","namespace","session_id"}; an empty string stands for null.
inline json filter(const std::string& cell, const std::string& actor = "",
                   const std::string& ns = "", const std::string& session = "") {
  auto value = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return {{"cell", cell},
          {"actor", value(actor)},
          {"namespace", value(ns)},
          {"session_id", value(session)}};
}

inline json with(json base, const json& extra) {
  for (const auto& item : extra.items()) base[item.key()] = item.value();
  return base;
}

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-mem-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_dir = pattern;
    core::PluginStatus status = host.load(AGENTRT_TEST_MEMORY_PLUGIN);
    ASSERT_TRUE(status.loaded) << status.error;
    open();
  }
  void TearDown() override {
    memory.reset();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir, ignored);
  }

  void open(const json& extra_config = json::object()) {
    memory = std::make_unique<core::PluginInstance>(
        host.find("memory-sqlite"), with({{"data_dir", data_dir}}, extra_config).dump());
  }
  std::string db_path() const { return data_dir + "/memory.db"; }

  const agentrt_memory_vtable_t& table() const { return memory->plugin().memory_table(); }
  json call(agentrt_json_call_fn fn, const json& request) const {
    return json::parse(memory->call_json(fn, request.dump()));
  }

  // A save with defaults: cell c1, actor alice, layer about_me, no namespace or session.
  json save(const json& fields) const {
    json request = {{"cell", "c1"},
                    {"layer", "about_me"},
                    {"content", "some content"},
                    {"namespace", nullptr},
                    {"actor", "alice"},
                    {"session_id", nullptr},
                    {"metadata", json::object()}};
    return call(table().save, with(request, fields));
  }
  json get(const json& f, const std::string& id) const {
    return call(table().get, with(f, {{"id", id}}));
  }
  json list(const json& f, const std::string& layer, int limit = 50,
            const json& cursor = nullptr) const {
    return call(table().list, with(f, {{"layer", layer}, {"limit", limit}, {"cursor", cursor}}));
  }
  json remove(const json& f, const std::string& id) const {
    return call(table().remove, with(f, {{"id", id}}));
  }
  json clear_layer(const json& f, const std::string& layer) const {
    return call(table().clear_layer, with(f, {{"layer", layer}}));
  }
  json count(const json& f) const { return call(table().count, f); }
  json search(const json& f, const std::string& query, const json& layers = nullptr,
              int limit = 10) const {
    return call(table().search, with(f, {{"query", query}, {"layers", layers}, {"limit", limit}}));
  }
  json delete_by_session(const std::string& cell, const std::string& session) const {
    return call(table().delete_by_session, {{"cell", cell}, {"session_id", session}});
  }

  // Every entry `list` shows for the filter and layer, following cursors to the end.
  std::vector<json> list_all(const json& f, const std::string& layer, int page = 500) const {
    std::vector<json> all;
    json cursor = nullptr;
    do {
      json r = list(f, layer, page, cursor);
      for (const json& e : r["data"]) all.push_back(e);
      cursor = r["next_cursor"];
    } while (!cursor.is_null());
    return all;
  }

  static std::vector<std::string> ids_of(const std::vector<json>& entries) {
    std::vector<std::string> ids;
    for (const json& e : entries) ids.push_back(e["id"]);
    return ids;
  }
  static std::vector<std::string> ids_of(const json& data) {
    std::vector<std::string> ids;
    for (const json& e : data) ids.push_back(e.contains("entry") ? e["entry"]["id"] : e["id"]);
    return ids;
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
  Failure raw_failure(agentrt_json_call_fn fn, const json& request) const {
    return failure([&] { call(fn, request); });
  }

  std::string data_dir;
  core::PluginHost host;
  std::unique_ptr<core::PluginInstance> memory;
};

}  // namespace agentrt::test
