// Request ids: a client may bring its own (so its logs and ours line up), within a
// shape that is safe to echo in a header and a log line; otherwise we make one.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::server {

constexpr std::size_t kMaxRequestIdLength = 64;

// 1..64 characters of [A-Za-z0-9._-].
bool is_valid_request_id(std::string_view id);

// 16 random lowercase hex characters.
std::string generate_request_id();

// The client's id when valid, else a fresh one.
std::string choose_request_id(std::string_view client_id);

}  // namespace agentrt::server
