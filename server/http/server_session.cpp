#include "server/http/server_session.h"

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>

#include <poll.h>

#include <cerrno>
#include <chrono>

namespace agentrt::server {

ServerSession::ServerSession(const Poco::Net::StreamSocket& socket,
                             Poco::Net::HTTPServerParams::Ptr params,
                             Poco::Timespan request_timeout, Poco::Timespan first_byte,
                             WaitMark& mark)
    : HTTPServerSession(socket, params),
      first_byte_(first_byte),
      keep_alive_timeout_(params->getKeepAliveTimeout()),
      requests_left_(params->getMaxKeepAliveRequests()),
      request_timeout_(std::chrono::microseconds(request_timeout.totalMicroseconds())),
      mark_(mark) {}

bool ServerSession::start_waiting() {
  if (mark_.owed() && buffered() == 0 && socket().available() == 0 && mark_.pay()) return false;
  mark_.waiting();
  return true;
}

void ServerSession::fill_waiting() {
  if (!start_waiting()) throw Poco::Net::NoMessageException("ended for a connection waiting");
  try {
    peek();
  } catch (const Poco::Exception&) {
    // Shed meanwhile: its socket is shut, and nothing is owed to the client.
    if (!mark_.claim()) throw Poco::Net::NoMessageException("shed while its head was arriving");
    throw;
  }
  if (!mark_.claim()) throw Poco::Net::NoMessageException("shed while its head was arriving");
}

void ServerSession::check_deadline() const {
  if (Clock::now() >= deadline_)
    throw Poco::TimeoutException(
        "the request did not arrive whole within server.request_timeout_s");
}

bool ServerSession::more_requests() {
  if (!socket().impl()->initialized()) return false;
  Poco::Timespan wait = keep_alive_timeout_;
  if (first_) {
    first_ = false;
    --requests_left_;
    wait = first_byte_;
  } else {
    if (requests_left_ == 0 || !getKeepAlive()) return false;
    if (requests_left_ > 0) --requests_left_;
    if (buffered() > 0) return true;
  }
  // Waiting for a client that may never send: the connection may be shed meanwhile.
  if (!start_waiting()) return false;
  const bool ready = readable(wait);
  return mark_.claim() && ready;
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
