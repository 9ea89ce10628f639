// Reading request bodies field by field, with 400 errors that name the field. Every
// body is checked against the fields its endpoint knows: an unknown field is an error
// rather than a silently ignored typo.
#pragma once

#include "core/domain/errors.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>

namespace agentrt::core {

void require_object(const nlohmann::json& body, const std::string& what = "request body");
void reject_unknown_fields(const nlohmann::json& body, std::initializer_list<const char*> known,
                           const std::string& prefix = "");

// For a resource's fields that have no "none" to set, where JSON null could only be
// read as "leave it" or "remove it": 400 that names the field.
void reject_null_fields(const nlohmann::json& body, std::initializer_list<const char*> fields);

// The checks of reject_unknown_fields and required_string without the error, for a
// caller that builds the field's location only when there is an error to report.
std::optional<std::string> first_unknown_field(const nlohmann::json& body,
                                               std::initializer_list<const char*> known);
const std::string* string_field(const nlohmann::json& body, const char* field);

std::string required_string(const nlohmann::json& body, const char* field,
                            const std::string& prefix = "");
std::optional<std::string> optional_string(const nlohmann::json& body, const char* field,
                                           const std::string& prefix = "");
std::optional<bool> optional_bool(const nlohmann::json& body, const char* field,
                                  const std::string& prefix = "");
std::optional<int64_t> optional_int(const nlohmann::json& body, const char* field,
                                    const std::string& prefix = "");

}  // namespace agentrt::core
