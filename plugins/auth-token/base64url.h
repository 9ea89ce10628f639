// Base64url (RFC 4648 section 5) without padding: the alphabet tokens and list
// cursors are written in, chosen because it is safe in URLs and headers unescaped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::auth_token {

std::string base64url_encode(std::string_view bytes);

// The decoded bytes, or nullopt for a character outside the alphabet, a length that
// no unpadded encoding has, or non-zero leftover bits (so each value has exactly one
// accepted encoding).
std::optional<std::string> base64url_decode(std::string_view text);

bool is_base64url_char(char c);

}  // namespace agentrt::auth_token
