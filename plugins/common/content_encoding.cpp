#include "common/content_encoding.h"

#include <agentrt/plugin.hpp>

#include <strings.h>

namespace agentrt::providers {

void refuse_encoded_body(long status, const HttpHeaders& headers) {
  if (status < 200 || status >= 300) return;
  auto found = headers.find("content-encoding");
  if (found == headers.end() || strcasecmp(found->second.c_str(), "identity") == 0) return;
  // The value is the upstream's word: kept short, and printable only.
  std::string coding;
  for (char c : found->second.substr(0, 32)) coding += (c >= 0x20 && c < 0x7f) ? c : '?';
  throw sdk::Error(AGENTRT_ERR_UPSTREAM,
                   "the upstream sent its answer with Content-Encoding: " + coding +
                       ", which was not asked for (agentrt asks for identity and decodes none)",
                   static_cast<int32_t>(status));
}

}  // namespace agentrt::providers
