#include "common/plain_http_target.h"

#include <arpa/inet.h>
#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace agentrt::providers {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Visible ASCII only: a space, a control or a non-ASCII byte is libcurl's to judge.
bool plain_visible(std::string_view text) {
  for (char c : text)
    if (c <= 0x20 || c >= 0x7f) return false;
  return true;
}

std::optional<uint16_t> parse_port(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<uint16_t>(value);
}

// Splits "host", "host:port" or "[v6]:port" into host and port text.
bool split_authority(std::string_view authority, std::string_view& host, std::string_view& port) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(1, close - 1);
    std::string_view rest = authority.substr(close + 1);
    if (rest.empty()) return true;
    if (rest.front() != ':') return false;
    port = rest.substr(1);
    return true;
  }
  size_t colon = authority.find(':');
  host = authority.substr(0, colon);
  if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  return true;
}

bool numeric_or_localhost(std::string_view host, bool bracketed) {
  std::string text(host);
  unsigned char scratch[sizeof(in6_addr)];
  if (bracketed) return inet_pton(AF_INET6, text.c_str(), scratch) == 1;
  return iequals(host, "localhost") || inet_pton(AF_INET, text.c_str(), scratch) == 1;
}

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

}  // namespace

std::optional<PlainHttpTarget> plain_http_target(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() || !iequals(url.substr(0, kScheme.size()), kScheme))
    return std::nullopt;
  url.remove_prefix(kScheme.size());
  url = url.substr(0, url.find('#'));  // a fragment is never sent
  if (!plain_visible(url)) return std::nullopt;
  size_t end = url.find_first_of("/?");
  std::string_view authority = url.substr(0, end);
  std::string_view rest = end == std::string_view::npos ? "" : url.substr(end);
  if (authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view host, port_text;
  if (!split_authority(authority, host, port_text) || host.empty()) return std::nullopt;
  bool bracketed = authority.front() == '[';
  if (!numeric_or_localhost(host, bracketed)) return std::nullopt;
  PlainHttpTarget target;
  if (!port_text.empty()) {
    std::optional<uint16_t> port = parse_port(port_text);
    if (!port) return std::nullopt;
    target.port = *port;
  } else if (authority.back() == ':') {
    return std::nullopt;
  }
  target.host = iequals(host, "localhost") ? "localhost" : std::string(host);
  std::string shown = bracketed ? "[" + target.host + "]" : target.host;
  target.host_header = target.port == 80 ? shown : shown + ":" + std::to_string(target.port);
  target.target = rest.empty() || rest.front() == '?' ? "/" + std::string(rest) : std::string(rest);
  target.pool_key = shown + ":" + std::to_string(target.port);
  return target;
}

bool builtin_client_allowed() {
  const char* choice = std::getenv("AGENTRT_UPSTREAM_CLIENT");
  if (choice != nullptr && std::strcmp(choice, "curl") == 0) return false;
  // libcurl reads only the lower-case http_proxy, so a CGI-set HTTP_PROXY is ignored.
  return !env_set("http_proxy") && !env_set("all_proxy") && !env_set("ALL_PROXY");
}

}  // namespace agentrt::providers
