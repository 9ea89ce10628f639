#include "common/data_url.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers {

std::optional<DataUrl> parse_data_url(std::string_view url) {
  if (url.compare(0, 5, "data:") != 0) return std::nullopt;
  size_t comma = url.find(',');
  constexpr std::string_view marker = ";base64";
  if (comma == std::string_view::npos || comma < 5 + marker.size() ||
      url.compare(comma - marker.size(), marker.size(), marker) != 0)
    throw sdk::Error(AGENTRT_ERR_REFUSED,
                     "request: an inline image must be a data:<type>;base64,<data> URL");
  DataUrl out;
  out.media_type = std::string(url.substr(5, comma - marker.size() - 5));
  // Parameters such as ";charset=..." may sit between the type and ";base64".
  out.media_type = out.media_type.substr(0, out.media_type.find(';'));
  out.base64 = std::string(url.substr(comma + 1));
  if (out.media_type.empty())
    throw sdk::Error(AGENTRT_ERR_REFUSED, "request: an inline image needs a media type");
  return out;
}

}  // namespace agentrt::providers
