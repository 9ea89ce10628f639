#include "time_format.h"

#include <agentrt/plugin.hpp>

#include <chrono>
#include <ctime>

namespace agentrt::auth_token {

int64_t now_unix_seconds() {
  using namespace std::chrono;
  return floor<seconds>(system_clock::now().time_since_epoch()).count();
}

std::string iso8601_utc(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr)
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: timestamp out of range");
  char buf[32];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace agentrt::auth_token
