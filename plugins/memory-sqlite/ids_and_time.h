// Entry ids and timestamps: ids are "mem_" plus 24 hex digits of kernel randomness;
// times are Unix milliseconds inside the store and ISO 8601 UTC at the boundary.
#pragma once

#include <cstdint>
#include <string>

namespace agentrt::memory_sqlite {

// "mem_" followed by 24 lowercase hex digits (96 random bits from getrandom(2)).
std::string new_entry_id();

// True for exactly what new_entry_id produces.
bool is_entry_id(const std::string& text);

int64_t now_unix_ms();

// "2026-11-22T00:00:00.000Z".
std::string iso8601_ms(int64_t unix_ms);

}  // namespace agentrt::memory_sqlite
