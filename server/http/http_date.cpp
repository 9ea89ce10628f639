#include "server/http/http_date.h"

#include <cstdio>

namespace agentrt::server {

std::string http_date(std::time_t when) {
  // Names spelled out: strftime's %a and %b follow the locale, the header does not.
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm utc{};
  gmtime_r(&when, &utc);
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[utc.tm_wday],
                utc.tm_mday, kMonths[utc.tm_mon], utc.tm_year + 1900, utc.tm_hour, utc.tm_min,
                utc.tm_sec);
  return text;
}

const std::string& http_date_now() {
  thread_local std::time_t formatted_for = -1;
  thread_local std::string text;
  const std::time_t now = std::time(nullptr);
  if (now != formatted_for) {
    text = http_date(now);
    formatted_for = now;
  }
  return text;
}

}  // namespace agentrt::server
