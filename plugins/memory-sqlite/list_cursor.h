// The list cursor: opaque to callers. Inside it is the storage sequence number of the
// last entry of the previous page; entries are listed by that number, newest first, and
// a new entry always gets a larger one, so later inserts never shift a page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::memory_sqlite {

std::string encode_cursor(int64_t seq);

// nullopt for anything encode_cursor could not have produced.
std::optional<int64_t> decode_cursor(std::string_view cursor);

}  // namespace agentrt::memory_sqlite
