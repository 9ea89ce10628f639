#include "common/json_fields.h"

#include "common/stream_decoder.h"

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

nlohmann::json parse_event_object(std::string_view text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) malformed("not a JSON object");
  return doc;
}

}  // namespace agentrt::providers
