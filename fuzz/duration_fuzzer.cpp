// The duration parser (core/domain/duration.h: "90s", "1h30m", a token's ttl) on any
// text. Besides not crashing: a duration it takes is above zero and at most
// kMaxTtlSeconds, is spelt with digits and the units d, h, m, s alone, and reads the
// same written out canonically ("1d2h3m4s", zero units left out); one it refuses says
// why.
#include "core/domain/duration.h"
#include "fuzz/fuzz_support.h"

#include <string>
#include <string_view>

namespace {

std::string canonical(int64_t seconds) {
  std::string out;
  const std::pair<int64_t, char> units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
  for (const auto& [size, unit] : units) {
    if (seconds >= size) out += std::to_string(seconds / size) + unit;
    seconds %= size;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const std::optional<int64_t> seconds = agentrt::core::parse_duration(text, error);
  if (!seconds) {
    FUZZ_CHECK(!error.empty(), "a refused duration says why");
    return 0;
  }
  FUZZ_CHECK(*seconds > 0 && *seconds <= agentrt::core::kMaxTtlSeconds, "a duration is in range");
  FUZZ_CHECK(text.find_first_not_of("0123456789dhms") == std::string_view::npos,
             "a duration is digits and units");
  std::string again_error;
  const std::string written = canonical(*seconds);
  FUZZ_CHECK(agentrt::core::parse_duration(written, again_error) == seconds,
             "a duration written out reads the same");
  return 0;
}
