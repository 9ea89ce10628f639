// The blocking path's driver of agentd's own HTTP/1.1 client (plain_transfer.h), for
// calls (post_streaming) to an upstream on plain http at an address literal or
// localhost: local model servers, gateways and sidecars. Everything else goes through
// libcurl (plain_http_target.h).
//
// Why: a /chat's upstream call is one POST and one streamed answer on a warm
// connection. libcurl's general machinery around that (options, handle reset, its
// multi handle, a poll after each read) cost a fifth of agentd's CPU per /chat at 16
// clients. Here a call on a warm connection is three system calls: the send, one poll,
// and the read that usually brings the whole answer.
//
// It keeps post_streaming's contract to the letter: the same errors for the same
// failures, cancellation through the sink's waker, the stall limit, the grace after
// the end marker, and a closed connection after any call that did not end cleanly.
// A reused connection that fails before any byte of the answer (the upstream closed
// it while idle) is retried once on a new one, as libcurl does.
#pragma once

#include "common/http_response.h"
#include "common/http_stream.h"
#include "common/plain_http_target.h"

namespace agentrt::providers {

HttpResponse post_plain(const PlainHttpTarget& target, const HttpRequest& request,
                        const StreamCallbacks& callbacks);

}  // namespace agentrt::providers
