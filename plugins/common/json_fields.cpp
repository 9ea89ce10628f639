#include "common/json_fields.h"

namespace agentrt::providers {

const nlohmann::json* field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string string_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = field(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

std::optional<int64_t> int_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = field(object, key);
  if (!value || !value->is_number_integer()) return std::nullopt;
  return value->get<int64_t>();
}

}  // namespace agentrt::providers
