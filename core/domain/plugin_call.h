// Calls into a service plugin (auth module, memory backend) that answer one JSON
// document, with the plugin's status codes turned into domain errors in one place.
#pragma once

#include "core/domain/errors.h"
#include "core/plugin_host/loaded_plugin.h"

#include <nlohmann/json.hpp>

#include <chrono>

namespace agentrt::core {

ErrorKind error_kind_for(int32_t abi_code);

// Sends `request`, parses the answer; DomainError for a failed call or a non-object.
nlohmann::json call_plugin_json(const PluginInstance& plugin, agentrt_json_call_fn fn,
                                const nlohmann::json& request);

// How long a plugin lets the host reuse an answer ("cache_s", SDK header): a whole
// number of seconds, else none; a malformed value means no reuse, never a failed call.
std::chrono::seconds allowed_reuse(const nlohmann::json& answer);

}  // namespace agentrt::core
