#include "server/http/uri.h"

namespace agentrt::server {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<RequestTarget> split_request_target(std::string_view target) {
  std::string origin_form;
  if (starts_with_ci(target, "http://") || starts_with_ci(target, "https://")) {
    // A client talking to us as if we were a proxy: only the path and query matter.
    const std::size_t authority = target.find("//") + 2;
    const std::size_t rest = target.find_first_of("/?#", authority);
    if (rest == std::string_view::npos || target[rest] != '/') origin_form = "/";
    if (rest != std::string_view::npos) origin_form.append(target.substr(rest));
    target = origin_form;
  }
  if (target.empty() || target.front() != '/') return std::nullopt;
  target = target.substr(0, target.find('#'));
  const std::size_t question = target.find('?');
  if (question == std::string_view::npos) return RequestTarget{std::string(target), {}};
  return RequestTarget{std::string(target.substr(0, question)),
                       std::string(target.substr(question + 1))};
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (text.size() - i < 3) return std::nullopt;
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<QueryParams> parse_query(std::string_view query) {
  QueryParams params;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    auto name = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!name || !value) return std::nullopt;
    params.emplace_back(std::move(*name), std::move(*value));
  }
  return params;
}

}  // namespace agentrt::server
