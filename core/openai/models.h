// GET /v1/models and /v1/models/{model} (docs/openai-compatible.md): the models of every
// provider (shared by all cells), as OpenAI's model objects {"id","object":"model",
// "created","owned_by"}: `owned_by` the provider's name, `created` when the provider was
// stored (Unix seconds; 0 for a provider of the config file).
#pragma once

#include "core/providers/provider_registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::core::openai {

// {"object":"list","data":[...]}, by id.
nlohmann::json model_list(const ProviderRegistry& providers);
// The model's object; 404 model_not_found.
nlohmann::json model_object(const ProviderRegistry& providers, const std::string& id);

}  // namespace agentrt::core::openai
