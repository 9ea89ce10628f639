#include "server/api/metrics_routes.h"

#include "core/metrics/metrics.h"
#include "server/http/api_error.h"
#include "server/http/response.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace agentrt::server::api {

namespace {

// Whether the peer of a connected socket is this host (127.0.0.0/8, ::1, or 127/8
// mapped into IPv6).
bool peer_is_loopback(int fd) {
  sockaddr_storage peer{};
  socklen_t size = sizeof peer;
  if (fd < 0 || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return false;
  if (peer.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(peer);
    return (ntohl(v4.sin_addr.s_addr) >> 24) == 127;
  }
  if (peer.ss_family != AF_INET6) return false;
  const in6_addr& v6 = reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

}  // namespace

void add_metrics_routes(Router& router, core::Engine& engine) {
  const core::MetricsAccess access = engine.config().metrics.access;
  const RouteAccess route_access =
      access == core::MetricsAccess::admin ? RouteAccess::admin : RouteAccess::open;
  router.add({"GET", "/metrics", RouteScope::root, route_access, false,
              [&engine, access](RequestContext& ctx, Response& response) {
                core::metrics::Metrics* metrics = core::metrics::active();
                if (access == core::MetricsAccess::off || metrics == nullptr)
                  throw ApiError(ErrorCode::not_found, "no route for GET /metrics");
                if (access == core::MetricsAccess::loopback && !peer_is_loopback(ctx.client_socket))
                  throw ApiError(ErrorCode::forbidden,
                                 "GET /metrics is served to clients on agentd's own host only "
                                 "(metrics.access is \"loopback\")");
                response.send_text(200, "text/plain; version=0.0.4; charset=utf-8",
                                   metrics->exposition(engine.runs().live_count()));
              }});
}

}  // namespace agentrt::server::api
