#include "requests.h"

#include "list_cursor.h"

#include "sqlite-common/request_json.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace agentrt::memory_sqlite {
namespace {

using nlohmann::json;
using plugin_sqlite::invalid_request;
using plugin_sqlite::parse_request_object;

std::string required_string(const json& request, const char* field) {
  auto it = request.find(field);
  if (it == request.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
    invalid_request(std::string(field) + " must be a non-empty string");
  return it->get<std::string>();
}

// Absent and null both mean "not set".
std::optional<std::string> optional_string(const json& request, const char* field) {
  auto it = request.find(field);
  if (it == request.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) invalid_request(std::string(field) + " must be a string or null");
  return it->get<std::string>();
}

int bounded_int(const json& request, const char* field, int low, int high) {
  auto it = request.find(field);
  if (it == request.end() || !it->is_number_integer())
    invalid_request(std::string(field) + " must be an integer");
  // An unsigned value beyond int64 would wrap in get<int64_t>; it is out of range anyway.
  int64_t value = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(high)
                      ? int64_t{high} + 1
                      : it->get<int64_t>();
  if (value < low || value > high)
    invalid_request(std::string(field) + " must be between " + std::to_string(low) + " and " +
                    std::to_string(high));
  return static_cast<int>(value);
}

int parse_layer(const json& request) {
  std::optional<int> code = layer_code(required_string(request, "layer"));
  if (!code) invalid_request("layer must be one of the seven memory layers");
  return *code;
}

Filter parse_filter(const json& request) {
  Filter f;
  f.cell = required_string(request, "cell");
  f.actor = optional_string(request, "actor");
  f.ns = optional_string(request, "namespace");
  f.session_id = optional_string(request, "session_id");
  return f;
}

LayerMask parse_layer_set(const json& request) {
  auto it = request.find("layers");
  if (it == request.end() || it->is_null()) return kAllLayers;
  if (!it->is_array()) invalid_request("layers must be an array of layer names or null");
  LayerMask mask = 0;
  for (const json& name : *it) {
    std::optional<int> code = name.is_string() ? layer_code(name.get<std::string>()) : std::nullopt;
    if (!code) invalid_request("layers must contain only the seven memory layer names");
    mask |= 1u << *code;
  }
  return mask;
}

}  // namespace

Config parse_config(const std::string& config_json) {
  json config = parse_request_object(config_json, "memory-sqlite config");
  for (const auto& item : config.items())
    if (item.key() != "data_dir" && item.key() != "search_candidates" &&
        item.key() != "checkpoint_pages" && item.key() != "cursor_key")
      invalid_request("memory-sqlite config: unknown key '" + item.key() + "'");
  Config c;
  auto dir = config.find("data_dir");
  if (dir == config.end() || !dir->is_string() || dir->get_ref<const std::string&>().empty())
    invalid_request("memory-sqlite config: data_dir must be a non-empty string");
  c.data_dir = dir->get<std::string>();
  if (config.contains("search_candidates"))
    c.search_candidates = bounded_int(config, "search_candidates", 1, kMaxSearchCandidates);
  if (config.contains("checkpoint_pages"))
    c.checkpoint_pages =
        bounded_int(config, "checkpoint_pages", kMinCheckpointPages, kMaxCheckpointPages);
  if (auto key = config.find("cursor_key"); key != config.end()) {
    std::optional<sdk::CursorSeal> seal =
        key->is_string() ? sdk::CursorSeal::from_hex(key->get_ref<const std::string&>())
                         : std::nullopt;
    if (!seal) invalid_request("memory-sqlite config: cursor_key must be 32 hex digits");
    c.cursor_seal = *seal;
  }
  return c;
}

SaveRequest parse_save(const std::string& request_json) {
  json request = parse_request_object(request_json, "save request");
  SaveRequest r;
  r.cell = required_string(request, "cell");
  r.layer = parse_layer(request);
  r.requested_layer = optional_string(request, "requested_layer");
  if (r.requested_layer && r.layer != kUnknownLayer)
    invalid_request("requested_layer is only allowed with the unknown layer");
  r.content = required_string(request, "content");
  r.ns = optional_string(request, "namespace");
  r.actor = required_string(request, "actor");
  r.session_id = optional_string(request, "session_id");
  auto metadata = request.find("metadata");
  if (metadata == request.end() || metadata->is_null()) {
    r.metadata_json = "{}";
  } else if (metadata->is_object()) {
    r.metadata_json = metadata->dump();
  } else {
    invalid_request("metadata must be an object");
  }
  return r;
}

IdRequest parse_id_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "request");
  return {parse_filter(request), required_string(request, "id")};
}

LayerRequest parse_layer_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "request");
  return {parse_filter(request), parse_layer(request), optional_string(request, "owner")};
}

ListRequest parse_list(const std::string& request_json, const sdk::CursorSeal& seal) {
  json request = parse_request_object(request_json, "list request");
  ListRequest r;
  r.filter = parse_filter(request);
  r.layer = parse_layer(request);
  r.limit = bounded_int(request, "limit", 1, kMaxListLimit);
  if (request.contains("max_tokens"))
    r.max_tokens = bounded_int(request, "max_tokens", 1, std::numeric_limits<int>::max());
  std::optional<std::string> cursor = optional_string(request, "cursor");
  if (cursor) {
    r.before_seq = decode_cursor(*cursor, seal);
    if (!r.before_seq) invalid_request("invalid cursor");
  }
  return r;
}

Filter parse_count(const std::string& request_json) {
  return parse_filter(parse_request_object(request_json, "count request"));
}

SearchRequest parse_search(const std::string& request_json) {
  json request = parse_request_object(request_json, "search request");
  SearchRequest r;
  r.filter = parse_filter(request);
  auto query = request.find("query");
  if (query == request.end() || !query->is_string()) invalid_request("query must be a string");
  r.query = query->get<std::string>();
  r.layers = parse_layer_set(request);
  r.limit = bounded_int(request, "limit", 1, kMaxSearchLimit);
  return r;
}

SessionRequest parse_session_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "delete_by_session request");
  return {required_string(request, "cell"), required_string(request, "session_id")};
}

}  // namespace agentrt::memory_sqlite
