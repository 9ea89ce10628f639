// The bundled memory backend: layered memory entries in SQLite (<data_dir>/memory.db),
// true counts (tallies kept exact by triggers, or a covering index range scan for a
// session), and BM25-ranked full-text search over FTS5. The request and answer shapes
// are in docs/plugin-author-guide.md.
#include "entry_codec.h"
#include "list_cursor.h"
#include "memory_store.h"
#include "requests.h"
#include "sqlite-common/migrations.h"

#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

namespace agentrt::memory_sqlite {
namespace {

using nlohmann::json;
using sdk::Error;

constexpr int kCountReuseSeconds = 60;

[[noreturn]] void not_found() {
  throw Error(AGENTRT_ERR_NOT_FOUND, "memory entry not found");
}

std::string deleted(int64_t n) {
  return json{{"deleted", n}}.dump();
}

Config logged(Config config, const sdk::Host& host) {
  plugin_sqlite::log_migrations_to(host);
  return config;
}

class MemorySqlitePlugin : public sdk::MemoryBackend {
 public:
  MemorySqlitePlugin(const sdk::Host& host, const std::string& config_json)
      : MemorySqlitePlugin(host, parse_config(config_json)) {}

  std::string save(const std::string& request_json) override {
    return entry_json(store_.save(parse_save(request_json))).dump();
  }

  std::string get(const std::string& request_json) override {
    std::optional<EntryRow> row = store_.get(parse_id_request(request_json));
    if (!row) not_found();
    return entry_json(*row).dump();
  }

  std::string list(const std::string& request_json) override {
    ListPage page = store_.list(parse_list(request_json, seal_));
    json data = json::array();
    for (const EntryRow& row : page.rows) data.push_back(entry_json(row));
    json next = page.has_more ? json(encode_cursor(page.rows.back().seq, seal_)) : json(nullptr);
    return json{{"data", std::move(data)}, {"next_cursor", std::move(next)}}.dump();
  }

  std::string remove(const std::string& request_json) override {
    if (!store_.remove(parse_id_request(request_json))) not_found();
    return deleted(1);
  }

  std::string clear_layer(const std::string& request_json) override {
    return deleted(store_.clear_layer(parse_layer_request(request_json)));
  }

  std::string count(const std::string& request_json) override {
    LayerCounts counts = store_.count(parse_count(request_json));
    json out = json::object();
    for (int layer = 0; layer < kLayerCount; ++layer)
      out[std::string(kLayerNames[static_cast<size_t>(layer)])] =
          counts[static_cast<size_t>(layer)];
    // The store is a file of the host's data dir that only the host writes, so the
    // host may reuse counts until it writes the cell (as auth-token does with claims).
    out["cache_s"] = kCountReuseSeconds;
    return out.dump();
  }

  std::string search(const std::string& request_json) override {
    json data = json::array();
    for (const SearchHit& hit : store_.search(parse_search(request_json)))
      data.push_back({{"entry", entry_json(hit.row)}, {"score", hit.score}});
    return json{{"data", std::move(data)}}.dump();
  }

  std::string delete_by_session(const std::string& request_json) override {
    return deleted(store_.delete_by_session(parse_session_request(request_json)));
  }

  std::string probe(const std::string&) override {
    store_.probe();
    return "{}";
  }

 private:
  MemorySqlitePlugin(const sdk::Host& host, Config config)
      : seal_(config.cursor_seal), store_(logged(std::move(config), host)) {
    host.log(AGENTRT_LOG_DEBUG, "memory-sqlite store ready");
  }

  sdk::CursorSeal seal_;
  MemoryStore store_;
};

}  // namespace
}  // namespace agentrt::memory_sqlite

AGENTRT_PLUGIN(agentrt::memory_sqlite::MemorySqlitePlugin, "memory-sqlite", "1.0.0",
               "Layered memory in SQLite: exact counts kept by triggers, BM25 search over FTS5",
               AGENTRT_FLAG_THREAD_SAFE)
