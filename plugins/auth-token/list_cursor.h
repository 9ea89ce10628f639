// The list cursor: opaque to callers, base64url of "<issued>:<id>" inside.
#pragma once

#include "token_store.h"

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::auth_token {

std::string encode_cursor(const ListPosition& position);

// nullopt for anything encode_cursor could not have produced.
std::optional<ListPosition> decode_cursor(std::string_view cursor);

}  // namespace agentrt::auth_token
