#include "core/domain/duration.h"

namespace agentrt::core {
namespace {

int unit_rank(char unit) {
  switch (unit) {
    case 'd':
      return 0;
    case 'h':
      return 1;
    case 'm':
      return 2;
    case 's':
      return 3;
    default:
      return -1;
  }
}

constexpr int64_t kUnitSeconds[] = {86400, 3600, 60, 1};

}  // namespace

std::optional<int64_t> parse_duration(std::string_view text, std::string& error) {
  const std::string shape = "a duration like 90s, 15m, 24h, 7d or 1h30m";
  if (text.empty()) {
    error = "must be " + shape;
    return std::nullopt;
  }
  int64_t total = 0;
  int last_rank = -1;
  size_t i = 0;
  while (i < text.size()) {
    size_t digits_start = i;
    int64_t number = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      number = number * 10 + (text[i] - '0');
      if (number > kMaxTtlSeconds) {
        error = "is longer than the maximum of 3660d";
        return std::nullopt;
      }
      ++i;
    }
    int rank = i < text.size() ? unit_rank(text[i]) : -1;
    if (i == digits_start || rank < 0 || rank <= last_rank) {
      error = "must be " + shape;
      return std::nullopt;
    }
    total += number * kUnitSeconds[rank];
    if (total > kMaxTtlSeconds) {
      error = "is longer than the maximum of 3660d";
      return std::nullopt;
    }
    last_rank = rank;
    ++i;
  }
  if (total <= 0) {
    error = "must be longer than zero";
    return std::nullopt;
  }
  return total;
}

}  // namespace agentrt::core
