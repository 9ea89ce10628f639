// An upstream address that never answers a connect, for connect timeouts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace agentrt::test {

// A listening socket whose accept queue is full: Linux drops further SYNs, so a
// connect to it neither succeeds nor fails until the client gives up.
class BlackHole {
 public:
  BlackHole() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len);
    ::listen(listener_, 0);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    filler_ = ::socket(AF_INET, SOCK_STREAM, 0);  // takes the one queue slot
    ::connect(filler_, reinterpret_cast<sockaddr*>(&addr), len);
  }
  ~BlackHole() {
    ::close(filler_);
    ::close(listener_);
  }
  uint16_t port() const { return port_; }

 private:
  int listener_ = -1, filler_ = -1;
  uint16_t port_ = 0;
};

}  // namespace agentrt::test
