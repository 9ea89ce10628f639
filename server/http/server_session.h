// The server side of one HTTP connection: Poco's HTTPServerSession, with the wait for
// the next request done by one poll(2). Poco's hasMoreRequests waits through
// Socket::poll, which on Linux creates, uses and closes an epoll instance per call:
// four system calls per request, 5% of agentd's CPU per /chat at one client.
#pragma once

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

namespace agentrt::server {

class ServerSession : public Poco::Net::HTTPServerSession {
 public:
  ServerSession(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params);

  // Poco's hasMoreRequests, decision for decision: the first request may take the
  // receive timeout to arrive, later ones the keep-alive timeout; at most the
  // configured number of requests per connection (0: unlimited), none once keep-alive
  // is off; a request already read ahead (pipelined) needs no wait.
  bool more_requests();
  // Poco's canKeepAlive for this class's count (Poco's own is not kept any more).
  bool can_keep_alive() const { return requests_left_ != 0; }
  // The next byte of the connection, EOF at its end (request_head.h reads the head
  // through it, never past it). Throws what a receive throws.
  int next_byte() { return get(); }
  // Up to `length` bytes, buffered ones first; 0 at the connection's end.
  int read_some(char* buffer, int length) { return read(buffer, length); }

 private:
  bool readable(Poco::Timespan timeout);

  bool first_ = true;
  Poco::Timespan keep_alive_timeout_;
  int requests_left_;
};

}  // namespace agentrt::server
