// The config object every HTTP provider plugin receives at create, validated strictly:
// a misspelt key is an error that names it, not a silently ignored setting.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::providers {

struct ProviderConfig {
  std::string name;
  std::string base_url;     // without a trailing '/'
  std::string api_key_ref;  // the {"source","value"} reference as JSON, "" for none
  nlohmann::json models = nlohmann::json::array();
  long connect_timeout_ms = 10000;
  long stall_timeout_ms = 60000;  // longest silence from the upstream
};

// Parses `config_json` for the plugin `plugin` (used in messages: "<plugin> config:
// unknown key 'x'"). Throws sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT) for an unknown
// key, a missing base_url or a value of the wrong shape. The key reference is kept
// as is: it is resolved only when a request is made.
ProviderConfig parse_provider_config(const std::string& plugin, const std::string& config_json);

}  // namespace agentrt::providers
