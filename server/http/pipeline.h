// What happens to every request, in this order:
//   1. request id chosen (the client's X-Request-Id if well-formed) and set on the
//      response, so every response carries it
//   2. body read whole, or the connection marked to close (413 / 400)
//   3. target parsed; route matched (404, 405 with Allow); query decoded (400)
//   4. middleware, in the order added (auth goes here: it sees the route's access)
//   5. json_body routes: Content-Type (415), then JSON parse (400 with the position);
//      a route that reads its body itself (handler_reads_json) parses it first thing,
//      with parse_json_body's errors, so a refusal comes at the same point
//   6. the handler; ApiError becomes its documented response, anything else a 500
//      whose detail is logged, never sent
//   7. one access log line: request_id, method, path, status, duration_ms
// Precedence of refusals follows that order (413 before 404, 401 before 415, ...).
// A request too broken to parse never reaches handle(): the connection answers it with
// reject_malformed() instead.
#pragma once

#include "server/http/request_context.h"
#include "server/http/router.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace Poco::Net {
class HTTPServerResponse;
}  // namespace Poco::Net

namespace agentrt::server {

class ApiRequest;

// Runs before the handler; throws ApiError to refuse the request.
using Middleware = std::function<void(RequestContext&)>;

struct PipelineOptions {
  uint64_t max_body_bytes = 1024 * 1024;
};

class RequestPipeline {
 public:
  RequestPipeline(std::shared_ptr<const Router> router, PipelineOptions options);

  // Before serving starts; not thread-safe.
  void add_middleware(Middleware middleware);

  void handle(ApiRequest& request, Poco::Net::HTTPServerResponse& response);

  // Answers a request that could not even be parsed (request line, headers): 400 in the
  // usual error shape with a fresh request id, then the connection closes. `detail`
  // goes to the debug log only.
  // `message`: what the client is told; "malformed HTTP request" unless said (`detail`,
  // which may quote the client's bytes, goes only to the debug log).
  void reject_malformed(Poco::Net::HTTPServerResponse& response, const std::string& detail,
                        const std::string& message = "malformed HTTP request");

  // From now on every response closes its connection, so that keep-alive clients let
  // go while the server drains, and a request that arrives on a connection still open
  // is refused: 503 shutting_down, with Retry-After.
  void begin_draining() { draining_ = true; }
  bool draining() const { return draining_; }

  // Requests inside handle() right now; what a graceful shutdown waits for.
  int active_requests() const { return active_; }

  const Router& router() const { return *router_; }
  const PipelineOptions& options() const { return options_; }

 private:
  class Run;
  std::shared_ptr<const Router> router_;
  PipelineOptions options_;
  std::vector<Middleware> middleware_;
  std::atomic<bool> draining_{false};
  std::atomic<int> active_{0};
};

}  // namespace agentrt::server
