// `data:` URLs as the engine passes inline images: data:<media type>;base64,<data>.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

struct DataUrl {
  std::string media_type;  // e.g. "image/png"
  std::string base64;      // the payload, still encoded
};

// std::nullopt for a URL that is not a data: URL. Throws
// sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT) for a data: URL that is not base64 with a
// media type, since no vendor accepts any other kind.
std::optional<DataUrl> parse_data_url(std::string_view url);

}  // namespace agentrt::providers
