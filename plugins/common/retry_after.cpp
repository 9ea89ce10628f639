#include "common/retry_after.h"

#include "common/http_response.h"

#include <curl/curl.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

namespace agentrt::providers {
namespace {

// A plain non-negative decimal number, nothing else (strtod alone would also take
// "inf", hex floats and trailing garbage).
std::optional<double> parse_number(std::string_view s) {
  s = trim_ows(s);
  if (s.empty() || s.size() > 32) return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.')) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

uint32_t clamp_ms(double ms) {
  if (!(ms > 0)) return 0;
  double max = static_cast<double>(std::numeric_limits<uint32_t>::max());
  return ms >= max ? std::numeric_limits<uint32_t>::max() : static_cast<uint32_t>(std::ceil(ms));
}

}  // namespace

uint32_t retry_after_ms(std::string_view retry_after_ms_header, std::string_view retry_after_header,
                        std::time_t now) {
  if (auto ms = parse_number(retry_after_ms_header)) return clamp_ms(*ms);
  if (auto seconds = parse_number(retry_after_header)) return clamp_ms(*seconds * 1000.0);
  std::string_view date = trim_ows(retry_after_header);
  if (date.empty()) return 0;
  // curl_getdate understands the three HTTP-date forms of RFC 9110.
  std::time_t at = curl_getdate(std::string(date).c_str(), nullptr);
  if (at == -1 || at <= now) return 0;
  return clamp_ms(std::difftime(at, now) * 1000.0);
}

}  // namespace agentrt::providers
