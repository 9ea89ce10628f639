#include "core/providers/provider_config.h"

#include "core/cells/cell_rules.h"
#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/domain/secret_ref.h"
#include "text/utf8.h"

namespace agentrt::core {
namespace {

nlohmann::json parse_key_ref(const nlohmann::json& body, const std::string& prefix) {
  auto it = body.find("api_key_ref");
  if (it == body.end() || it->is_null()) return nullptr;
  return parse_secret_ref(*it, prefix + "api_key_ref");
}

ModelInfo parse_model(const nlohmann::json& body, const std::string& prefix,
                      bool unknown_fields_allowed = false) {
  require_object(body, "'" + prefix.substr(0, prefix.size() - 1) + "'");
  if (!unknown_fields_allowed)
    reject_unknown_fields(body, {"id", "context_window", "supports_vision", "supports_tools"},
                          prefix);
  ModelInfo model;
  model.id = required_string(body, "id", prefix);
  if (model.id.empty() || text::utf8_length(model.id) > 256)
    throw invalid("field '" + prefix + "id' must be 1 to 256 characters");
  auto window = optional_int(body, "context_window", prefix);
  if (!window) throw invalid("field '" + prefix + "context_window' is required");
  if (*window < 1 || *window > 100000000)
    throw invalid("field '" + prefix + "context_window' must be from 1 to 100000000");
  model.context_window = *window;
  model.supports_vision = optional_bool(body, "supports_vision", prefix).value_or(false);
  model.supports_tools = optional_bool(body, "supports_tools", prefix).value_or(true);
  return model;
}

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "(none loaded)" : out;
}

}  // namespace

ProviderRecord parse_provider(const nlohmann::json& body, size_t index,
                              const std::set<std::string>& types) {
  const std::string prefix = "providers[" + std::to_string(index) + "].";
  require_object(body, "'providers[" + std::to_string(index) + "]'");
  reject_unknown_fields(body, {"name", "type", "base_url", "api_key_ref", "models", "options"},
                        prefix);
  ProviderRecord record;
  record.name = required_string(body, "name", prefix);
  if (!valid_cell_id(record.name))  // the same shape as a cell id: safe in paths and logs
    throw invalid("field '" + prefix + "name' must be 1 to 63 characters of a-z, 0-9, '_', '-'");
  record.type = required_string(body, "type", prefix);
  if (!types.count(record.type))
    throw invalid(
        "field '" + prefix +
        "type' names no provider plugin that is loaded and enabled; available: " + join(types));
  record.base_url = optional_string(body, "base_url", prefix).value_or("");
  if (!record.base_url.empty() && record.base_url.rfind("http://", 0) != 0 &&
      record.base_url.rfind("https://", 0) != 0)
    throw invalid("field '" + prefix + "base_url' must be an http:// or https:// URL");
  if (url_has_user_info(record.base_url))
    throw invalid("field '" + prefix +
                  "base_url' must not hold credentials (user:password@); give the key as "
                  "api_key_ref, which is never shown");
  record.api_key_ref = parse_key_ref(body, prefix);
  if (body.contains("options") && !body["options"].is_null()) {
    require_object(body["options"], "field '" + prefix + "options'");
    for (const auto& item : body["options"].items())
      if (item.key() == "name" || item.key() == "base_url" || item.key() == "api_key_ref" ||
          item.key() == "models")
        throw invalid("field '" + prefix + "options." + item.key() + "' is set at the top level");
    record.options = body["options"];
  }
  auto models = body.find("models");
  if (models == body.end() || !models->is_array() || models->empty())
    throw invalid("field '" + prefix + "models' must be a non-empty array");
  for (size_t i = 0; i < models->size(); ++i)
    record.models.push_back(
        parse_model((*models)[i], prefix + "models[" + std::to_string(i) + "]."));
  return record;
}

std::vector<ModelInfo> parse_model_list(const std::string& listed) {
  const nlohmann::json document = nlohmann::json::parse(listed, nullptr, false);
  if (!document.is_object() || !document.contains("models") || !document["models"].is_array())
    throw invalid("it is not a JSON object with a \"models\" array");
  std::vector<ModelInfo> models;
  const nlohmann::json& list = document["models"];
  for (size_t i = 0; i < list.size(); ++i)
    models.push_back(parse_model(list[i], "models[" + std::to_string(i) + "].", true));
  return models;
}

nlohmann::json models_json(const std::vector<ModelInfo>& models) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : models)
    out.push_back({{"id", m.id},
                   {"context_window", m.context_window},
                   {"supports_vision", m.supports_vision},
                   {"supports_tools", m.supports_tools}});
  return out;
}

std::vector<ModelInfo> models_from_json(const nlohmann::json& models) {
  std::vector<ModelInfo> out;
  for (const auto& m : models)
    out.push_back({m.value("id", ""), m.value("context_window", int64_t{0}),
                   m.value("supports_vision", false), m.value("supports_tools", true)});
  return out;
}

nlohmann::json public_json(const ProviderRecord& record) {
  return {
      {"name", record.name},
      {"type", record.type},
      {"base_url", record.base_url.empty() ? nlohmann::json() : nlohmann::json(record.base_url)},
      {"api_key_ref", masked_secret_ref(record.api_key_ref)},
      {"models", models_json(record.models)},
      {"options", record.options},
      {"created_at", record.created_at},
      {"updated_at", record.updated_at}};
}

nlohmann::json plugin_config(const ProviderRecord& record) {
  nlohmann::json config = record.options;
  config["name"] = record.name;
  config["models"] = models_json(record.models);
  if (!record.base_url.empty()) config["base_url"] = record.base_url;
  if (!record.api_key_ref.is_null()) config["api_key_ref"] = record.api_key_ref;
  return config;
}

}  // namespace agentrt::core
