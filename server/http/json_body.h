// A request body parsed as JSON, with the pipeline's 400s: an empty body, and a parse
// error at a position given as people count it (never the bytes, which may hold a
// secret the client meant for a provider).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace agentrt::server {

// Arrays and objects nested deeper than this are refused (400): no real request comes
// near it, and each level costs stack in every recursive walk of the value.
inline constexpr size_t kMaxJsonDepth = 64;

nlohmann::json parse_json_body(const std::string& body);

}  // namespace agentrt::server
