// Validation of the plugin's config and of each operation's request. The engine sends
// clean requests, so these checks guard the contract rather than user input: every
// message names the offending field and never repeats a value (values are memories).
#pragma once

#include "layers.h"

#include <agentrt/cursor_seal.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::memory_sqlite {

inline constexpr int kMaxListLimit = 500;
inline constexpr int kMaxSearchLimit = 100;
inline constexpr int kDefaultSearchCandidates = 2000;
inline constexpr int kMaxSearchCandidates = 100000;
// WAL pages after which SQLite's automatic checkpoint runs (wal_autocheckpoint). A save
// writes about 16.5 pages, many the same few each time, and a checkpoint copies each
// page once: at SQLite's default of 1,000 the hot pages went back every 60 saves, with
// two fdatasyncs; at 10,000 (40 MB) every 600. 100k-entry loads: 3,646-4,279 saves/s
// against 2,898-3,575, p99 0.54-0.67 ms against 6.2-7.3 ms (bench/README.md).
inline constexpr int kDefaultCheckpointPages = 10000;
inline constexpr int kMinCheckpointPages = 100;
inline constexpr int kMaxCheckpointPages = 1000000;

struct Config {
  std::string data_dir;
  int search_candidates = kDefaultSearchCandidates;
  int checkpoint_pages = kDefaultCheckpointPages;
  // The host's "cursor_key" (ABI 1.7); an all-zero key without one.
  sdk::CursorSeal cursor_seal;
};

// Which entries of one cell an operation sees; an unset field does not filter.
struct Filter {
  std::string cell;
  std::optional<std::string> actor;
  std::optional<std::string> ns;
  std::optional<std::string> session_id;
};

struct SaveRequest {
  std::string cell;
  int layer = 0;
  std::optional<std::string> requested_layer;  // only with the unknown layer
  std::string content;
  std::optional<std::string> ns;
  std::string actor;
  std::optional<std::string> session_id;
  std::string metadata_json;  // a JSON object, compact
};

struct IdRequest {
  Filter filter;
  std::string id;
};

struct LayerRequest {
  Filter filter;
  int layer = 0;
  // Set: only the entries this actor wrote go, in a shared layer too.
  std::optional<std::string> owner;
};

struct ListRequest {
  Filter filter;
  int layer = 0;
  int limit = 50;
  std::optional<int64_t> before_seq;  // from the cursor: only entries older than this
  int64_t max_tokens = INT64_MAX;     // ABI 1.5: only entries estimated at most this
};

struct SearchRequest {
  Filter filter;
  std::string query;
  LayerMask layers = kAllLayers;
  int limit = 10;
};

struct SessionRequest {
  std::string cell;
  std::string session_id;
};

Config parse_config(const std::string& config_json);
SaveRequest parse_save(const std::string& request_json);
IdRequest parse_id_request(const std::string& request_json);
LayerRequest parse_layer_request(const std::string& request_json);
ListRequest parse_list(const std::string& request_json, const sdk::CursorSeal& seal);
Filter parse_count(const std::string& request_json);
SearchRequest parse_search(const std::string& request_json);
SessionRequest parse_session_request(const std::string& request_json);

}  // namespace agentrt::memory_sqlite
