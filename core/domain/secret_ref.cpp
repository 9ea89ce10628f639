#include "core/domain/secret_ref.h"

#include "core/domain/json_fields.h"

namespace agentrt::core {

nlohmann::json parse_secret_ref(const nlohmann::json& ref, const std::string& field) {
  const std::string where = field + ".";
  require_object(ref, "field '" + field + "'");
  reject_unknown_fields(ref, {"source", "value"}, where);
  std::string source = required_string(ref, "source", where);
  if (source != "inline" && source != "env" && source != "file")
    throw invalid("field '" + where + "source' must be one of inline, env, file");
  std::string value = required_string(ref, "value", where);
  if (value.empty()) throw invalid("field '" + where + "value' must not be empty");
  return {{"source", source}, {"value", value}};
}

nlohmann::json masked_secret_ref(const nlohmann::json& ref) {
  if (ref.is_null()) return ref;
  if (!ref.is_object()) return "***";
  nlohmann::json shown = ref;
  const std::string* source = string_field(ref, "source");
  const bool named = source && (*source == "env" || *source == "file");
  if (!named && shown.contains("value")) shown["value"] = "***";
  return shown;
}

bool url_has_user_info(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return false;
  const size_t end = url.find_first_of("/?#", start + 3);
  return url.substr(start + 3, end == std::string::npos ? end : end - start - 3).find('@') !=
         std::string::npos;
}

}  // namespace agentrt::core
