// Timestamps: whole Unix seconds inside the store, ISO 8601 UTC at the boundary.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace agentrt::auth_token {

// Seconds since the epoch of `t`, rounded down, or up.
int64_t unix_seconds_floor(std::chrono::system_clock::time_point t);
int64_t unix_seconds_ceil(std::chrono::system_clock::time_point t);
// The same for now, rounded down.
int64_t now_unix_seconds();

// "2026-11-21T23:59:59.000Z": whole seconds, in the milliseconds shape of the API.
std::string iso8601_utc(int64_t unix_seconds);

}  // namespace agentrt::auth_token
