#include "server/http/server_session.h"

#include <Poco/Exception.h>

#include <poll.h>

#include <cerrno>
#include <chrono>

namespace agentrt::server {

ServerSession::ServerSession(const Poco::Net::StreamSocket& socket,
                             Poco::Net::HTTPServerParams::Ptr params,
                             Poco::Timespan request_timeout, Poco::Timespan first_byte)
    : HTTPServerSession(socket, params),
      first_byte_(first_byte),
      keep_alive_timeout_(params->getKeepAliveTimeout()),
      requests_left_(params->getMaxKeepAliveRequests()),
      request_timeout_(std::chrono::microseconds(request_timeout.totalMicroseconds())) {}

void ServerSession::check_deadline() const {
  if (Clock::now() >= deadline_)
    throw Poco::TimeoutException(
        "the request did not arrive whole within server.request_timeout_s");
}

bool ServerSession::more_requests() {
  if (!socket().impl()->initialized()) return false;
  if (first_) {
    first_ = false;
    --requests_left_;
    return readable(first_byte_);
  }
  if (requests_left_ == 0 || !getKeepAlive()) return false;
  if (requests_left_ > 0) --requests_left_;
  return buffered() > 0 || readable(keep_alive_timeout_);
}

// Ready also counts a hang-up or an error: the read that follows reports it.
bool ServerSession::readable(Poco::Timespan timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
  pollfd fd{socket().impl()->sockfd(), POLLIN, 0};
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    const int ready = ::poll(&fd, 1, left > 0 ? static_cast<int>(left) : 0);
    if (ready >= 0) return ready > 0;
    if (errno != EINTR) return true;  // let the read report what went wrong
  }
}

}  // namespace agentrt::server
