// Durations as the API writes them: one or more <number><unit> groups with units d, h,
// m, s, each unit at most once and in that order: "90s", "15m", "24h", "7d", "1h30m".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

constexpr int64_t kMaxTtlSeconds = 10LL * 366 * 24 * 3600;  // ten years

// Seconds, or nullopt with `error` saying what is wrong (zero, garbage, too long).
std::optional<int64_t> parse_duration(std::string_view text, std::string& error);

}  // namespace agentrt::core
