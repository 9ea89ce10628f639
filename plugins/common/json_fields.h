// Tolerant reads from a vendor's error body (nlohmann: a cold path; the streams are read
// with lib/text/json_reader.h): a field that is absent, null or of another type reads as
// "not there" instead of throwing, because vendors add, drop and null fields between
// versions.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

// `object[key]` when `object` is an object holding a `key` of that type.
const nlohmann::json* field(const nlohmann::json& object, const char* key);
std::string string_field(const nlohmann::json& object, const char* key);
std::optional<int64_t> int_field(const nlohmann::json& object, const char* key);

}  // namespace agentrt::providers
