// Reads a request body whole, or decides that the connection must close instead.
// Poco serves the next keep-alive request from whatever bytes follow, so a body left
// half-read corrupts the next request: every request goes through here, whether or not
// its route wants a body.
#pragma once

#include "server/http/api_error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::server {

class ApiRequest;

struct RequestBody {
  std::string data;
  // Set when the body could not be taken: too large (413) or unreadable (400).
  std::optional<ApiError> error;
  // Bytes of this request may still be unread: the connection must not be reused.
  bool unread_bytes = false;
};

// Content-Length over `limit` is refused without reading; a chunked body is read until
// it grows past `limit`. A request with neither header has no body (RFC 9112 6.3),
// whatever Poco would otherwise do with it. (A Content-Length that is not a number never
// gets here: the head reader refuses it.)
RequestBody read_request_body(ApiRequest& request, uint64_t limit);

// Whether a request announces a body over `limit`, judged from its headers alone.
bool announces_body_over(const ApiRequest& request, uint64_t limit);

// For a response that closes its connection while request bytes are still in flight:
// closing at once would make the kernel answer those bytes with a reset, which can
// destroy the response before the client reads it. So stop sending, then read and drop
// what the client still sends, for at most `budget_ms`, before the close.
void discard_until_client_stops(ApiRequest& request, int budget_ms);

}  // namespace agentrt::server
