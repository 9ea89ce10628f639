#include "request_json.h"

#include <agentrt/plugin.hpp>

namespace agentrt::plugin_sqlite {

void invalid_request(const std::string& message) {
  throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, message);
}

nlohmann::json parse_request_object(const std::string& text, const char* what) {
  nlohmann::json doc = nlohmann::json::parse(text.empty() ? std::string("{}") : text, nullptr,
                                             /*allow_exceptions=*/false);
  if (!doc.is_object()) invalid_request(std::string(what) + " is not a JSON object");
  return doc;
}

}  // namespace agentrt::plugin_sqlite
