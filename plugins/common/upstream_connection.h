// The sockets of agentd's own HTTP/1.1 client (plain_http.h): opening one without
// blocking, and the calling thread's idle connections kept warm between calls.
//
// Like the libcurl handles (curl_handles.h), idle connections belong to one thread:
// a worker thread calls the same upstream again and again, and nothing is shared or
// locked. A connection in use belongs to its transfer alone; a transfer that ends any
// other way than cleanly closes it, so the upstream sees the client go away.
#pragma once

#include <cstdint>
#include <string>

namespace agentrt::providers {

class UpstreamConnection {
 public:
  UpstreamConnection() = default;
  UpstreamConnection(int fd, bool reused) : fd_(fd), reused_(reused) {}
  ~UpstreamConnection() { close(); }
  UpstreamConnection(UpstreamConnection&& other) noexcept;
  UpstreamConnection& operator=(UpstreamConnection&& other) noexcept;
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  // Taken from the idle connections rather than opened for this call: a failure
  // before any byte of the answer may then be a connection the upstream had closed.
  bool reused() const { return reused_; }
  void mark_reused() { reused_ = true; }
  void close();

 private:
  int fd_ = -1;
  bool reused_ = false;
};

// A non-blocking TCP socket to `address` (an IPv4 or IPv6 literal) with its connect
// started: TCP_NODELAY and keep-alive probes as libcurl sets them. `in_progress` is
// true when the connect has yet to finish (wait for writable, then connect_result).
// Throws std::system_error when the socket cannot be made or the connect fails at once.
UpstreamConnection start_connect(const std::string& address, uint16_t port, bool& in_progress);

// 0 when the connect of `fd` succeeded, else its errno.
int connect_result(int fd);

// The calling thread's idle connection to `key`, or a closed one. One idle for long
// is checked first, and dropped when the upstream has closed it meanwhile.
UpstreamConnection take_idle(const std::string& key);

// Keeps `connection` for the next call of this thread to `key`. Those idle for a
// minute are closed, and the oldest first beyond a thousand a thread.
void keep_idle(const std::string& key, UpstreamConnection connection);

}  // namespace agentrt::providers
