// The pieces of a request target the router and handlers need, decoded by hand so the
// rules are ours and tested: a path is split on '/' before percent-decoding (so %2F
// stays inside a segment), and '+' means a space only in the query.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentrt::server {

struct RequestTarget {
  std::string path;   // raw (still percent-encoded), always starting with '/'
  std::string query;  // raw, without the '?'
};

// Accepts origin-form ("/a?b") and absolute-form ("http://host/a?b"); nullopt for
// anything else ("*", authority-form, empty). A fragment, if a client sends one, is dropped.
std::optional<RequestTarget> split_request_target(std::string_view target);

// nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// "a=1&b=x%20y&c" -> {a:1, b:"x y", c:""}, in order, duplicates kept; nullopt when an
// escape is malformed.
std::optional<QueryParams> parse_query(std::string_view query);

}  // namespace agentrt::server
