#include "requests.h"

#include "list_cursor.h"

#include "sqlite-common/request_json.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace agentrt::auth_token {
namespace {

using nlohmann::json;
using plugin_sqlite::invalid_request;
using plugin_sqlite::parse_request_object;

// nullopt for a non-integer (including 1.0 and booleans); integers beyond int64 clamp
// to its maximum so that range checks reject them with their own message.
std::optional<int64_t> as_int(const json& value) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    constexpr auto max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(u > max ? max : u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

std::optional<int64_t> parse_ttl(const json& request) {
  if (!request.contains("ttl_s"))
    invalid_request("ttl_s is required (positive integer seconds, or null for no expiry)");
  const json& ttl = request["ttl_s"];
  if (ttl.is_null()) return std::nullopt;
  std::optional<int64_t> seconds = as_int(ttl);
  if (!seconds || *seconds <= 0) invalid_request("ttl_s must be a positive integer or null");
  if (*seconds > kMaxTtlSeconds)
    invalid_request("ttl_s must be at most " + std::to_string(kMaxTtlSeconds) + " (3660 days)");
  return seconds;
}

}  // namespace

StoreConfig parse_config(const std::string& config_json) {
  json config = parse_request_object(config_json, "auth-token config");
  for (const auto& item : config.items())
    // "cursor_key" (ABI 1.7) goes unused: a token list is for admins of the whole
    // engine, who see every token, so its cursors hide nothing from them.
    if (item.key() != "data_dir" && item.key() != "guest" && item.key() != "cursor_key")
      invalid_request("auth-token config: unknown key '" + item.key() + "'");
  auto it = config.find("data_dir");
  if (it == config.end()) invalid_request("auth-token config: data_dir is required");
  if (!it->is_string() || it->get<std::string>().empty())
    invalid_request("auth-token config: data_dir must be a non-empty string");
  StoreConfig out{it->get<std::string>()};
  if (auto guest = config.find("guest"); guest != config.end()) {
    if (!guest->is_boolean()) invalid_request("auth-token config: guest must be a boolean");
    out.guest = guest->get<bool>();
  }
  return out;
}

std::string parse_verify_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "verify request");
  auto it = request.find("token");
  if (it == request.end() || !it->is_string()) invalid_request("token must be a string");
  return it->get<std::string>();
}

IssueRequest parse_issue_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "issue request");
  IssueRequest r;
  r.ttl_s = parse_ttl(request);

  auto actor = request.find("actor");
  if (actor == request.end() || !actor->is_string() || actor->get<std::string>().empty())
    invalid_request("actor must be a non-empty string");
  r.actor = actor->get<std::string>();

  auto cell = request.find("cell");
  if (cell != request.end() && !cell->is_null()) {
    // An empty cell name would scope the token to a cell that cannot exist.
    if (!cell->is_string() || cell->get<std::string>().empty())
      invalid_request("cell must be a non-empty string or null");
    r.cell = cell->get<std::string>();
  }

  auto admin = request.find("admin");
  if (admin != request.end()) {
    if (!admin->is_boolean()) invalid_request("admin must be a boolean");
    r.admin = admin->get<bool>();
  }
  return r;
}

ListQuery parse_list_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "list request");
  ListQuery q;
  auto limit = request.find("limit");
  if (limit != request.end() && !limit->is_null()) {
    std::optional<int64_t> n = as_int(*limit);
    if (!n || *n < 1 || *n > kMaxListLimit)
      invalid_request("limit must be an integer from 1 to " + std::to_string(kMaxListLimit));
    q.limit = static_cast<int>(*n);
  }
  auto cursor = request.find("cursor");
  if (cursor != request.end() && !cursor->is_null()) {
    if (!cursor->is_string()) invalid_request("cursor must be a string or null");
    q.after = decode_cursor(cursor->get<std::string>());
    if (!q.after) invalid_request("invalid cursor");
  }
  auto admin = request.find("admin");
  if (admin != request.end() && !admin->is_null()) {
    if (!admin->is_boolean()) invalid_request("admin must be a boolean or null");
    q.admin = admin->get<bool>();
  }
  return q;
}

std::string parse_revoke_request(const std::string& request_json) {
  json request = parse_request_object(request_json, "revoke request");
  auto id = request.find("id");
  if (id == request.end() || !id->is_string()) invalid_request("id must be a string");
  return id->get<std::string>();
}

}  // namespace agentrt::auth_token
