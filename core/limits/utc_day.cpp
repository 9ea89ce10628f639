#include "core/limits/utc_day.h"

#include <ctime>

namespace agentrt::core::limits {

std::string day_text(int64_t day) {
  const std::time_t seconds = static_cast<std::time_t>(day * (kDayMs / 1000));
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &tm);
  return text;
}

std::string day_start_text(int64_t day) {
  return day_text(day) + "T00:00:00Z";
}

}  // namespace agentrt::core::limits
