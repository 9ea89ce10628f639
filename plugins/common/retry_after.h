// How long the upstream asked us to wait before trying again, from its headers.
#pragma once

#include <cstdint>
#include <ctime>
#include <string_view>

namespace agentrt::providers {

// `retry_after_ms_header` (OpenAI's `retry-after-ms`, milliseconds, may be fractional)
// wins over `retry_after_header` (seconds, possibly fractional, or an HTTP-date, taken
// relative to `now`). Empty, unparsable, negative or past values give 0; the result
// is clamped to what fits the ABI's uint32_t.
uint32_t retry_after_ms(std::string_view retry_after_ms_header, std::string_view retry_after_header,
                        std::time_t now);

}  // namespace agentrt::providers
