// The server side of one HTTP connection: Poco's HTTPServerSession, with the wait for
// the next request done by one poll(2). Poco's hasMoreRequests waits through
// Socket::poll, which on Linux creates, uses and closes an epoll instance per call:
// four system calls per request, 5% of agentd's CPU per /chat at one client.
#pragma once

#include "server/http/idle_shedding.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <chrono>

namespace agentrt::server {

class ServerSession : public Poco::Net::HTTPServerSession {
 public:
  // `request_timeout`: how long a request may take to arrive whole, head and body;
  // `first_byte`: how long the connection may wait for its first byte.
  // `mark`: the connection's, set while the session waits on its client
  // (idle_shedding.h).
  ServerSession(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                Poco::Timespan request_timeout, Poco::Timespan first_byte, WaitMark& mark);

  // Poco's hasMoreRequests, but for the first wait: the first request may take
  // `first_byte` to begin (Poco: the receive timeout, 30 s of a thread for a client that
  // never sends a byte), later ones the keep-alive timeout; at most the configured number
  // of requests per connection (0: unlimited), none once keep-alive is off; a request
  // already read ahead (pipelined) needs no wait.
  bool more_requests();
  // Poco's canKeepAlive for this class's count (Poco's own is not kept any more).
  bool can_keep_alive() const { return requests_left_ != 0; }
  // The next byte of the connection (0 to 255), EOF at its end. Throws what a receive
  // throws. Poco's get() returns the buffer's char as it is, so a byte from 0x80 up came
  // out negative, and 0xFF as EOF: an obs-text byte ended a field value as if the
  // connection had.
  int next_byte() {
    if (buffered() == 0) {
      check_deadline();
      peek();  // fills the buffer: empty after it, the connection has ended
      if (buffered() == 0) return EOF;
    }
    return static_cast<unsigned char>(get());
  }
  // The same for a request's head (request_head.h reads it through this, never past
  // it). The head's first read follows a wait that found bytes ready; a wait for more of
  // the head after that may be shed (idle_shedding.h), which throws
  // Poco::Net::NoMessageException.
  int next_head_byte() {
    if (buffered() == 0) {
      check_deadline();
      if (head_read_) {
        fill_waiting();
      } else {
        head_read_ = true;
        peek();
      }
      if (buffered() == 0) return EOF;
    }
    return static_cast<unsigned char>(get());
  }
  // Up to `length` bytes, buffered ones first; 0 at the connection's end.
  int read_some(char* buffer, int length) { return read(buffer, length); }
  // Poco's body streams read through it too.
  int read(char* buffer, std::streamsize length) override {
    if (buffered() == 0) check_deadline();
    return HTTPServerSession::read(buffer, length);
  }
  // A request begins: it must have arrived whole by the request timeout from now. The
  // receive timeout bounds each wait for bytes, so a client sending a byte every few
  // seconds held a thread for as long as it liked (slowloris); checked before each
  // receive, where the clock costs nothing beside the system call.
  // A connection's first request counts from the connection's start: its wait for a first
  // byte is bounded by the receive timeout alone, and a client that sends that byte just
  // before it runs out would otherwise have the whole request timeout again to drip the
  // rest, 59 s against a documented 30.
  void start_request() {
    deadline_ = (first_request_ ? started_ : Clock::now()) + request_timeout_;
    head_read_ = false;
    first_request_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool readable(Poco::Timespan timeout);
  void check_deadline() const;  // throws Poco::TimeoutException once past it
  // Marks the connection waiting on its client; false when it ends instead, to free its
  // thread for a connection owed one (idle_shedding.h).
  bool start_waiting();
  // Fills the buffer with more of a head as a connection that may be shed meanwhile;
  // throws Poco::Net::NoMessageException when it was.
  void fill_waiting();

  bool first_ = true;
  bool first_request_ = true;
  bool head_read_ = false;  // the current request's head has had its first read
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  Poco::Timespan first_byte_;
  Poco::Timespan keep_alive_timeout_;
  int requests_left_;
  Clock::duration request_timeout_;
  Clock::time_point deadline_ = Clock::time_point::max();
  WaitMark& mark_;
};

}  // namespace agentrt::server
