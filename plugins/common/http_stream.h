// One streaming HTTP POST, driven on the calling thread so that every body byte, and
// every check for cancellation, happens on the thread that owns the provider sink.
//
// Why a multi handle around one easy handle: libcurl calls its progress callback only
// about once a second while a connection is idle, far too coarse to notice a cancel
// within 100 ms. curl_multi_poll with a short timeout wakes the loop often enough to
// poll the sink and to notice a stalled upstream, at no cost while bytes flow.
#pragma once

#include "common/http_response.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may hold the API key
  std::string body;
  std::string user_agent;
  long connect_timeout_ms = 10000;  // DNS, TCP and TLS
  long stall_timeout_ms = 60000;    // longest silence once connected
};

// What the transfer reports to, all on the calling thread.
struct StreamCallbacks {
  // 2xx body bytes as they arrive, in arbitrary pieces, called from inside libcurl's
  // write callback with a view of its buffer (no copy); may throw to end the call: the
  // exception is kept while libcurl ends the transfer, then rethrown.
  std::function<void(std::string_view bytes)> on_body;
  // Polled at least every 25 ms; true ends the call with Error(CANCELLED). With a
  // waker registered, checked when woken, and still at least once a second.
  std::function<bool()> cancelled;
  // Registers (or with nullptr unregisters) a function the host calls when
  // `cancelled` may have changed (sdk::Sink::set_waker); false when it cannot.
  std::function<bool(void (*)(void*), void*)> set_waker;
  // True once the body carried its end marker: from then on the answer is complete,
  // so an upstream that keeps the response open, or breaks it, no longer matters.
  std::function<bool()> complete;
  // Called after each pass of libcurl over the transfer: sends on what on_body held
  // back (the text of that pass as one fragment; delta_emitter.h). May throw.
  std::function<void()> flush;
};

// Sends `request` and waits for the answer. While the status is 2xx, body bytes go
// to `on_body`; any other status's body is collected into the returned response
// instead. Returns once the upstream ended the response cleanly, or shortly after
// `complete()` turned true.
//
// Throws sdk::Error: TIMEOUT (connect timeout, or no byte for stall_timeout_ms),
// UNAVAILABLE (cannot connect, or the connection failed before any response),
// UPSTREAM (the connection broke mid-response), CANCELLED, INVALID_ARGUMENT (an
// unusable URL), and whatever `on_body` throws. Whenever the response did not end
// cleanly the connection is closed, so the upstream sees the client go away;
// messages never contain request headers.
HttpResponse post_streaming(const HttpRequest& request, const StreamCallbacks& callbacks);

}  // namespace agentrt::providers
