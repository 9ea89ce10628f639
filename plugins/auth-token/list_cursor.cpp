#include "list_cursor.h"

#include "base64url.h"
#include "token_format.h"

#include <cstdint>

namespace agentrt::auth_token {
namespace {

// Digits only, no sign or leading zero, at most 18 digits so it cannot overflow.
std::optional<int64_t> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::string encode_cursor(const ListPosition& position) {
  return base64url_encode(std::to_string(position.issued) + ":" + position.id);
}

std::optional<ListPosition> decode_cursor(std::string_view cursor) {
  std::optional<std::string> plain = base64url_decode(cursor);
  if (!plain) return std::nullopt;
  size_t colon = plain->find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::optional<int64_t> issued = parse_count(std::string_view(*plain).substr(0, colon));
  std::string id = plain->substr(colon + 1);
  if (!issued || !is_token_id(id)) return std::nullopt;
  return ListPosition{*issued, id};
}

}  // namespace agentrt::auth_token
