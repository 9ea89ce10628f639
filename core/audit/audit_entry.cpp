#include "core/audit/audit_entry.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace agentrt::core {
namespace {

nlohmann::json or_null(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

// Reads `width` digits at `at`; false when they are not all digits.
bool read_digits(std::string_view text, size_t at, size_t width, int& value) {
  if (at + width > text.size()) return false;
  value = 0;
  for (size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  return true;
}

bool expect_char(std::string_view text, size_t at, char c) {
  return at < text.size() && text[at] == c;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// The offset in minutes east of UTC at `at` ("Z", "+hh:mm", "-hh:mm"), which must end
// the text; none otherwise.
std::optional<int> read_offset(std::string_view text, size_t at) {
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) return 0;
  if (at + 6 != text.size() || (text[at] != '+' && text[at] != '-')) return std::nullopt;
  int hours = 0, minutes = 0;
  if (!read_digits(text, at + 1, 2, hours) || !expect_char(text, at + 3, ':') ||
      !read_digits(text, at + 4, 2, minutes) || hours > 23 || minutes > 59)
    return std::nullopt;
  const int offset = hours * 60 + minutes;
  return text[at] == '-' ? -offset : offset;
}

}  // namespace

const char* audit_kind_name(AuditKind kind) {
  return kind == AuditKind::refusal ? "refusal" : "action";
}

nlohmann::json to_json(const AuditEntry& entry) {
  return {{"at", rfc3339_ms(entry.at_ms)},
          {"last_at",
           entry.last_at_ms ? nlohmann::json(rfc3339_ms(*entry.last_at_ms)) : nlohmann::json()},
          {"count", entry.count},
          {"actor", or_null(entry.actor)},
          {"token_id", or_null(entry.token_id)},
          {"peer", or_null(entry.peer)},
          {"request_id", or_null(entry.request_id)},
          {"action", entry.action},
          {"target", or_null(entry.target)},
          {"cell", or_null(entry.cell)},
          {"status", entry.status},
          {"result", entry.error ? *entry.error : std::string("ok")},
          {"detail", or_null(entry.detail)}};
}

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string rfc3339_ms(int64_t unix_ms) {
  const int64_t millis = ((unix_ms % 1000) + 1000) % 1000;
  const std::time_t seconds = static_cast<std::time_t>((unix_ms - millis) / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[64];  // room for any year the compiler can imagine
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::optional<int64_t> parse_rfc3339(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, 0, 4, year) || !expect_char(text, 4, '-') ||
      !read_digits(text, 5, 2, month) || !expect_char(text, 7, '-') ||
      !read_digits(text, 8, 2, day) ||
      (!expect_char(text, 10, 'T') && !expect_char(text, 10, 't')) ||
      !read_digits(text, 11, 2, hour) || !expect_char(text, 13, ':') ||
      !read_digits(text, 14, 2, minute) || !expect_char(text, 16, ':') ||
      !read_digits(text, 17, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 60)  // 60: a leap second, read as the next one
    return std::nullopt;
  size_t at = 19;
  int millis = 0;
  if (expect_char(text, at, '.')) {
    size_t digits = 0;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits)
      if (digits < 3) millis = millis * 10 + (text[at] - '0');
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  const std::optional<int> offset = read_offset(text, at);
  if (!offset) return std::nullopt;
  std::tm utc{};
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  utc.tm_sec = second;
  const int64_t seconds = static_cast<int64_t>(::timegm(&utc)) - int64_t{*offset} * 60;
  return seconds * 1000 + millis;
}

}  // namespace agentrt::core
