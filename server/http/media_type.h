// Whether a Content-Type names JSON, decided as Poco's MediaType(value).matches(
// "application", "json") decides it, without building one per request (a parse into
// three strings and a map of parameters, 0.4% of a /chat's instructions).
#pragma once

#include <string_view>

namespace agentrt::server {

// "application/json" in any case, after leading whitespace, its subtype ending at a
// ';' or whitespace, whatever parameters follow ("application/json; charset=utf-8").
bool is_json_media_type(std::string_view content_type);

}  // namespace agentrt::server
