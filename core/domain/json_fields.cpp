#include "core/domain/json_fields.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace agentrt::core {
namespace {

// A field present with JSON null counts as absent for optional fields.
const nlohmann::json* present(const nlohmann::json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}

DomainError wrong_type(const std::string& prefix, const char* field, const char* type) {
  return invalid("field '" + prefix + field + "' must be " + type);
}

}  // namespace

void require_object(const nlohmann::json& body, const std::string& what) {
  if (!body.is_object()) throw invalid(what + " must be a JSON object");
}

std::optional<std::string> first_unknown_field(const nlohmann::json& body,
                                               std::initializer_list<const char*> known) {
  for (const auto& item : body.items()) {
    bool ok = std::any_of(known.begin(), known.end(),
                          [&](const char* name) { return item.key() == name; });
    if (!ok) return item.key();
  }
  return std::nullopt;
}

void reject_unknown_fields(const nlohmann::json& body, std::initializer_list<const char*> known,
                           const std::string& prefix) {
  if (auto key = first_unknown_field(body, known))
    throw invalid("unknown field '" + prefix + *key + "'");
}

void reject_null_fields(const nlohmann::json& body, std::initializer_list<const char*> fields) {
  for (const char* field : fields) {
    auto it = body.find(field);
    if (it != body.end() && it->is_null())
      throw invalid("field '" + std::string(field) + "' must not be null");
  }
}

const std::string* string_field(const nlohmann::json& body, const char* field) {
  auto it = body.find(field);
  return it != body.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

std::string required_string(const nlohmann::json& body, const char* field,
                            const std::string& prefix) {
  if (const std::string* text = string_field(body, field)) return *text;
  if (!present(body, field)) throw invalid("field '" + prefix + field + "' is required");
  throw wrong_type(prefix, field, "a string");
}

std::optional<std::string> optional_string(const nlohmann::json& body, const char* field,
                                           const std::string& prefix) {
  const nlohmann::json* value = present(body, field);
  if (!value) return std::nullopt;
  if (!value->is_string()) throw wrong_type(prefix, field, "a string");
  return value->get<std::string>();
}

std::optional<bool> optional_bool(const nlohmann::json& body, const char* field,
                                  const std::string& prefix) {
  const nlohmann::json* value = present(body, field);
  if (!value) return std::nullopt;
  if (!value->is_boolean()) throw wrong_type(prefix, field, "a boolean");
  return value->get<bool>();
}

std::optional<int64_t> optional_int(const nlohmann::json& body, const char* field,
                                    const std::string& prefix) {
  const nlohmann::json* value = present(body, field);
  if (!value) return std::nullopt;
  // A whole number past 64 bits is an integer all the same (nlohmann reads one past
  // uint64 as a double), just one no field here allows.
  const double number = value->is_number() ? value->get<double>() : 0;
  const bool too_large =
      (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t{INT64_MAX}) ||
      (value->is_number_float() && std::isfinite(number) && std::trunc(number) == number &&
       std::fabs(number) >= 9.2e18);
  if (too_large) throw invalid("field '" + prefix + field + "' is an integer out of range");
  if (!value->is_number_integer()) throw wrong_type(prefix, field, "an integer");
  return value->get<int64_t>();
}

}  // namespace agentrt::core
