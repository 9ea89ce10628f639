#pragma once

#include <chrono>
#include <ctime>
#include <string>
#include <thread>

namespace agentrt::test {

// Parses "YYYY-MM-DDTHH:MM:SS.000Z" (whole seconds, in the API's milliseconds shape);
// -1 when the text has any other shape.
inline int64_t parse_iso8601(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
  if (end == nullptr || *end != '\0' || text.size() != 24) return -1;
  return static_cast<int64_t>(timegm(&tm));
}

inline int64_t now_seconds() {
  using namespace std::chrono;
  return floor<seconds>(system_clock::now().time_since_epoch()).count();
}

// Timestamps are whole seconds, so a test about a one-second lifetime starts just
// after a second begins: then "issued" and "checked at once" fall in the same second.
inline void wait_for_start_of_second() {
  using namespace std::chrono;
  auto now = system_clock::now().time_since_epoch();
  auto next = ceil<seconds>(now) + milliseconds(20);
  std::this_thread::sleep_for(next - now);
}

}  // namespace agentrt::test
