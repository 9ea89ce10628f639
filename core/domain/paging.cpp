#include "core/domain/paging.h"

#include "core/domain/errors.h"

#include <cstdio>

namespace agentrt::core {
namespace {

// A cursor is "p" followed by the position in hex and a check digit, so a hand-made or
// truncated cursor is refused instead of silently paging from somewhere else.
char check_digit(const std::string& hex) {
  unsigned sum = 7;
  for (char c : hex) sum = sum * 31 + static_cast<unsigned char>(c);
  return "abcdefghijklmnopqrstuvwxyz"[sum % 26];
}

}  // namespace

std::string encode_cursor(int64_t position) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(position));
  return std::string("p") + hex + check_digit(hex);
}

std::optional<int64_t> decode_cursor(const std::string& cursor) {
  if (cursor.size() < 3 || cursor.size() > 18 || cursor[0] != 'p') return std::nullopt;
  std::string hex = cursor.substr(1, cursor.size() - 2);
  if (check_digit(hex) != cursor.back()) return std::nullopt;
  int64_t value = 0;
  for (char c : hex) {
    int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + digit;
  }
  return value;
}

PageRequest parse_page_request(const std::optional<std::string>& limit,
                               const std::optional<std::string>& cursor) {
  PageRequest page;
  if (limit) {
    bool digits = !limit->empty() && limit->size() <= 6 &&
                  limit->find_first_not_of("0123456789") == std::string::npos;
    int value = digits ? std::stoi(*limit) : 0;
    if (value < 1 || value > kMaxPageLimit)
      throw invalid("query parameter 'limit' must be an integer from 1 to " +
                    std::to_string(kMaxPageLimit));
    page.limit = value;
  }
  if (cursor) {
    page.after = decode_cursor(*cursor);
    if (!page.after) throw invalid("query parameter 'cursor' is not a cursor this server issued");
  }
  return page;
}

nlohmann::json page_body(nlohmann::json rows, bool more, int64_t last_position) {
  return {{"data", std::move(rows)},
          {"next_cursor", more ? nlohmann::json(encode_cursor(last_position)) : nlohmann::json()}};
}

}  // namespace agentrt::core
