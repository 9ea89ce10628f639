#include "time_format.h"

#include <agentrt/plugin.hpp>

#include <chrono>
#include <ctime>

namespace agentrt::auth_token {

int64_t unix_seconds_floor(std::chrono::system_clock::time_point t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

int64_t unix_seconds_ceil(std::chrono::system_clock::time_point t) {
  return std::chrono::ceil<std::chrono::seconds>(t.time_since_epoch()).count();
}

int64_t now_unix_seconds() {
  return unix_seconds_floor(std::chrono::system_clock::now());
}

std::string iso8601_utc(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: timestamp out of range");
  char buf[32];
  // With milliseconds, always .000 here, in the shape of every other timestamp of the
  // API, so that one format reads them all.
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
  return std::string(buf, n);
}

}  // namespace agentrt::auth_token
