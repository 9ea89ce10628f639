// What an upstream answered, as the transport hands it to the error mapping.
#pragma once

#include <strings.h>

#include <map>
#include <string>
#include <string_view>

namespace agentrt::providers {

// A field value without the optional whitespace (spaces and tabs) around it, RFC 9110's
// OWS.
inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Whether the comma-separated list `value` (a field's value) holds `token`, in any case;
// with `last_only`, as its last item.
inline bool list_has(std::string_view value, std::string_view token, bool last_only = false) {
  bool found = false;
  while (true) {
    size_t comma = value.find(',');
    std::string_view item = trim_ows(value.substr(0, comma));
    bool same =
        item.size() == token.size() && strncasecmp(item.data(), token.data(), token.size()) == 0;
    found = last_only ? same : (found || same);
    if (comma == std::string_view::npos) return found;
    value.remove_prefix(comma + 1);
  }
}

// Header names lower-cased; a repeated header keeps its values joined with ", ".
using HttpHeaders = std::map<std::string, std::string>;

// Of a non-2xx answer's body, only this much is kept: enough for any vendor's error.
constexpr size_t kMaxErrorBody = 64 * 1024;

struct HttpResponse {
  long status = 0;
  HttpHeaders headers;
  std::string body;  // only for a non-2xx answer, and only its first 64 KiB

  // The value of header `lower_name`, or "" when absent.
  std::string_view header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string_view() : std::string_view(it->second);
  }
};

}  // namespace agentrt::providers
