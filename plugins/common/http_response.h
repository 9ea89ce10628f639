// What an upstream answered, as the transport hands it to the error mapping.
#pragma once

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
