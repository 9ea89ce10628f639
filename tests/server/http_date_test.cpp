// The Date header's value (server/http/http_date.h), against Poco's formatter that
// wrote it before.
#include "server/http/http_date.h"

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/Timestamp.h>

#include <gtest/gtest.h>

namespace agentrt::server {
namespace {

std::string poco_date(std::time_t when) {
  return Poco::DateTimeFormatter::format(Poco::Timestamp::fromEpochTime(when),
                                         Poco::DateTimeFormat::HTTP_FORMAT);
}

TEST(HttpDate, WritesWhatPocoWroteForEveryWeekdayAndMonth) {
  EXPECT_EQ(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(http_date(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");  // RFC 9110's example
  // A leap day, a year's last second, and a day of each weekday and month after.
  for (std::time_t when :
       {std::time_t{951782399}, std::time_t{1709164800}, std::time_t{1767225599}})
    EXPECT_EQ(http_date(when), poco_date(when)) << when;
  for (std::time_t when = 1700000000; when < 1700000000 + 400 * 86400; when += 86400 + 3671)
    EXPECT_EQ(http_date(when), poco_date(when)) << when;
}

TEST(HttpDate, NowFollowsTheClock) {
  const std::time_t before = std::time(nullptr);
  const std::string now = http_date_now();
  const std::time_t after = std::time(nullptr);
  EXPECT_TRUE(now == http_date(before) || now == http_date(after)) << now;
}

}  // namespace
}  // namespace agentrt::server
