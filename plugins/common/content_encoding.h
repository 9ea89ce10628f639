// The providers decode no content coding: the vendors' requests ask for the body as
// it is (Accept-Encoding: identity), since without that field RFC 9110 lets a server
// pick any coding. A proxy on the way may compress all the same; such a 2xx body
// would reach the stream decoders as bytes of no known shape, so it is refused by
// name before they see it.
#pragma once

#include "common/http_response.h"

#include <string_view>

namespace agentrt::providers {

inline constexpr const char* kAcceptIdentity = "Accept-Encoding: identity";

// Throws sdk::Error (AGENTRT_ERR_UPSTREAM) when a 2xx answer's Content-Encoding (its
// values joined with ", ", "" when absent) names a coding that compresses (gzip,
// deflate, br, zstd...); returns otherwise.
void refuse_encoded_body(long status, std::string_view content_encoding);

}  // namespace agentrt::providers
