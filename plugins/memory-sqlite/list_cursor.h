// The list cursor: opaque to callers. Inside it is the storage sequence number of the
// last entry of the previous page, sealed under the host's cursor key (ABI 1.7); entries
// are listed by that number, newest first, and a new entry always gets a larger one, so
// later inserts never shift a page. In the clear it told how many entries every actor
// and cell saved between two pages.
#pragma once

#include <agentrt/cursor_seal.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::memory_sqlite {

std::string encode_cursor(int64_t seq, const sdk::CursorSeal& seal);

// nullopt for anything encode_cursor could not have produced under `seal`.
std::optional<int64_t> decode_cursor(std::string_view cursor, const sdk::CursorSeal& seal);

}  // namespace agentrt::memory_sqlite
