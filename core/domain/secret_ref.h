// Credential references as the admin API takes them (a shared provider's api_key_ref, a
// tool server's header values): {"source":"inline"|"env"|"file","value"}, resolved by
// the host each time a plugin asks (core/plugin_host/host_api.h), never shown whole.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::core {

// The reference `ref`, checked: an object with a `source` of inline, env or file and a
// non-empty string `value`, nothing else. Throws invalid naming `field` and the member
// ("field 'providers[0].api_key_ref.source' must be one of inline, env, file").
nlohmann::json parse_secret_ref(const nlohmann::json& ref, const std::string& field);

// The reference as a response shows it: an inline value reads "***"; an environment
// variable's name or a file's path, which are no secret, as they are. Null stays null;
// anything else that is no reference (a config file's mistake) reads "***" whole.
nlohmann::json masked_secret_ref(const nlohmann::json& ref);

// Whether the URL's authority has user information (user:password@): a credential,
// which a URL is shown and may be logged with, so the API refuses it.
bool url_has_user_info(const std::string& url);

}  // namespace agentrt::core
