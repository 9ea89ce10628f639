#include "common/content_encoding.h"

#include <agentrt/plugin.hpp>

#include <algorithm>
#include <array>
#include <string_view>

namespace agentrt::providers {
namespace {

// The codings that compress (RFC 9110's registry, and the x- aliases and zstd seen in
// practice). A value outside them (identity, or a misconfigured server's "utf-8" or
// "none") says nothing about the bytes, which were read as they came before and still
// are.
bool any_compresses(std::string_view value) {
  static constexpr std::array<std::string_view, 7> kCodings = {
      "gzip", "x-gzip", "deflate", "br", "compress", "x-compress", "zstd"};
  return std::any_of(kCodings.begin(), kCodings.end(),
                     [&](std::string_view coding) { return list_has(value, coding); });
}

}  // namespace

void refuse_encoded_body(long status, std::string_view content_encoding) {
  if (status < 200 || status >= 300) return;
  if (content_encoding.empty() || !any_compresses(content_encoding)) return;
  // The value is the upstream's word: kept short, and printable only.
  std::string coding;
  for (char c : content_encoding.substr(0, 32)) coding += (c >= 0x20 && c < 0x7f) ? c : '?';
  throw sdk::Error(AGENTRT_ERR_UPSTREAM,
                   "the upstream sent its answer with Content-Encoding: " + coding +
                       ", which was not asked for (agentrt asks for identity and decodes none)",
                   static_cast<int32_t>(status));
}

}  // namespace agentrt::providers
