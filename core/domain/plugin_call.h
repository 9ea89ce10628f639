// Calls into a service plugin (auth module, memory backend) that answer one JSON
// document, with the plugin's status codes turned into domain errors in one place.
#pragma once

#include "core/domain/errors.h"
#include "core/plugin_host/loaded_plugin.h"

#include <nlohmann/json.hpp>

namespace agentrt::core {

ErrorKind error_kind_for(int32_t abi_code);

// Sends `request`, parses the answer; DomainError for a failed call or a non-object.
nlohmann::json call_plugin_json(const PluginInstance& plugin, agentrt_json_call_fn fn,
                                const nlohmann::json& request);

}  // namespace agentrt::core
