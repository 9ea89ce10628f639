#include "common/vendor_adapter.h"

#include <ctime>

namespace agentrt::providers {

void end_response(const HttpResponse& response, const VendorAdapter& adapter,
                  StreamDecoder& decoder, std::string_view key) {
  if (response.status < 200 || response.status >= 300)
    throw map_http_error(response, adapter.parse_error(response.body), key, std::time(nullptr));
  decoder.end_of_stream();
}

}  // namespace agentrt::providers
