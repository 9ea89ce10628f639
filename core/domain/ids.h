// Identifiers the engine makes: a prefix naming the kind and 24 hex characters, the
// first 12 the creation time in milliseconds since 1970 and the last 12 random (48
// bits), e.g. run_019a8f3c2e51b7d4810a6c9e.
//
// Time first because every id is a key of a unique index: ids that grow with time
// insert at the index's right edge, so a busy server dirties the same few index pages
// again and again instead of a random page per insert, and each WAL checkpoint writes
// far fewer pages. 48 random bits keep ids made in the same millisecond apart (one
// collision in ~16 million ids minted within one millisecond) and unguessable enough
// for what they are: names, never credentials.
#pragma once

#include <cstdint>
#include <string>

namespace agentrt::core {

std::string random_hex(size_t bytes);
std::string new_id(const char* prefix);
// The same with the time given, for tests.
std::string new_id(const char* prefix, uint64_t unix_ms);

}  // namespace agentrt::core
