// Which upstream URLs agentd's own HTTP/1.1 client serves (plain_http.h), and what it
// needs to know of one. Everything else (https, a host name to look up, user info,
// unusual characters, a proxy in the environment) goes to libcurl, so that every
// case the small client does not know stays with a client that does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

struct PlainHttpTarget {
  // An IPv4 or IPv6 literal, or "localhost" (tried as 127.0.0.1, then ::1): never a
  // name that needs a resolver, whose wait the connect timeout could not bound.
  std::string host;
  uint16_t port = 80;
  std::string host_header;  // as libcurl sends it: the port only when not 80
  std::string target;       // path and query, at least "/"
  std::string pool_key;     // host and port, for reusing connections
};

// The target of `url` when the built-in client serves it, else nullopt.
std::optional<PlainHttpTarget> plain_http_target(std::string_view url);

// False when the environment names a proxy libcurl would use for plain http
// (http_proxy, all_proxy, ALL_PROXY), or when AGENTRT_UPSTREAM_CLIENT=curl asks for
// libcurl everywhere.
bool builtin_client_allowed();

}  // namespace agentrt::providers
