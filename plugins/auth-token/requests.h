// Validation of the plugin's config and of each operation's request. Every message
// names the offending field and never repeats a value, since a value may be a token.
#pragma once

#include "token_store.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::auth_token {

inline constexpr int64_t kMaxTtlSeconds = int64_t{10} * 366 * 24 * 60 * 60;
inline constexpr int kMaxListLimit = 500;

struct IssueRequest {
  std::optional<int64_t> ttl_s;  // unset: never expires
  std::string actor;
  std::optional<std::string> cell;
  bool admin = false;
};

StoreConfig parse_config(const std::string& config_json);
// Returns the token (INVALID_ARGUMENT when it is missing or not a string).
std::string parse_verify_request(const std::string& request_json);
IssueRequest parse_issue_request(const std::string& request_json);
ListQuery parse_list_request(const std::string& request_json);
// Returns the id.
std::string parse_revoke_request(const std::string& request_json);

}  // namespace agentrt::auth_token
