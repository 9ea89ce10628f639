// A shared provider as the admin API configures it, and the checks on its fields.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace agentrt::core {

struct ModelInfo {
  std::string id;
  int64_t context_window = 0;
  bool supports_vision = false;
  // Tools may be offered to it (ABI 1.8); false for a model of a plugin built before.
  bool supports_tools = true;
};

struct ProviderRecord {
  std::string name, type, base_url;
  nlohmann::json api_key_ref;  // {"source","value"} or null
  std::vector<ModelInfo> models;
  nlohmann::json options = nlohmann::json::object();  // plugin-specific, e.g. timeouts
  std::string created_at, updated_at;
  int64_t seq = 0;  // the stored row's, kept by an update: lists go newest first by it
};

// Parses one element of "providers"; `index` names it in errors ("providers[2].type").
// `types` are the loaded provider plugins; an unknown type is 400 listing them.
ProviderRecord parse_provider(const nlohmann::json& body, size_t index,
                              const std::set<std::string>& types);

// The record as GET shows it: an inline key is masked as "***".
nlohmann::json public_json(const ProviderRecord& record);

// The config object the provider plugin's create receives: the unmasked reference,
// never the secret itself (the plugin resolves it through the host when it calls).
nlohmann::json plugin_config(const ProviderRecord& record);

nlohmann::json models_json(const std::vector<ModelInfo>& models);
std::vector<ModelInfo> models_from_json(const nlohmann::json& models);

// A provider plugin's list_models answer, {"models":[{"id","context_window",
// "supports_vision"?,"supports_tools"?}]}, held to the rules a shared provider's models are (an id
// of 1 to 256 characters, a window from 1 to 100000000); fields it does not know are a newer
// plugin's and left alone. Throws invalid naming the field ("models[0].id").
std::vector<ModelInfo> parse_model_list(const std::string& listed);

}  // namespace agentrt::core
