// A JSON text that a client sent, read whole into a document with the API's refusals:
// empty, nested too deep, not JSON (with the position as people count it, never the
// bytes, which may hold a secret the client meant for a provider), a number past a
// double, a key written twice. Every route's body is read so, and a /run body's refusal
// is worded so (core/runs/run_request.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

namespace agentrt::core {

// Arrays and objects nested deeper than this are refused: no real request comes near
// it, and each level costs stack in every recursive walk of the value.
inline constexpr size_t kMaxJsonDepth = 64;

// Throws invalid() naming what is wrong.
nlohmann::json parse_json_body(std::string_view body);

}  // namespace agentrt::core
