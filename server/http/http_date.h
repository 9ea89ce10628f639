// The Date header's value (RFC 9110 IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT").
// Poco formatted it for every response through its DateTimeFormatter (0.7% of agentd's
// CPU at 16 concurrent /chat); it changes once a second, so each thread formats it
// once a second.
#pragma once

#include <ctime>
#include <string>

namespace agentrt::server {

std::string http_date(std::time_t when);
// The date now; the reference stays valid on this thread until its next call.
const std::string& http_date_now();

}  // namespace agentrt::server
