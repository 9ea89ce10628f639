#include "common/upstream_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <deque>
#include <system_error>
#include <utility>

namespace agentrt::providers {
namespace {

using Clock = std::chrono::steady_clock;

// A worker thread has one call at a time; a transfer loop has as many as streams run
// on it, and each finished one leaves a connection the next can take (a loop that
// kept only a few would connect anew for most of its streams: at 2,000 streams, 8%
// more CPU a delta). The bound only stops a burst from holding descriptors for good.
constexpr size_t kMaxIdle = 1024;
// Servers close idle connections after a few seconds (Node's default is 5 s). One idle
// longer than this is checked before use, and one idle for very long is closed.
constexpr auto kCheckAfter = std::chrono::seconds(1);
constexpr auto kDropAfter = std::chrono::seconds(60);

struct Idle {
  std::string key;
  UpstreamConnection connection;
  Clock::time_point since;
};

// Oldest first: connections are kept at the back and taken from the back.
std::deque<Idle>& idle_connections() {
  thread_local std::deque<Idle> idle;
  return idle;
}

// True when the upstream closed the connection, or sent something nobody asked for.
bool gone_stale(int fd) {
  char byte;
  ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

void set_option(int fd, int level, int name, int value) {
  ::setsockopt(fd, level, name, &value, sizeof value);
}

}  // namespace

UpstreamConnection::UpstreamConnection(UpstreamConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), reused_(other.reused_) {}

UpstreamConnection& UpstreamConnection::operator=(UpstreamConnection&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    reused_ = other.reused_;
  }
  return *this;
}

void UpstreamConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

UpstreamConnection start_connect(const std::string& address, uint16_t port, bool& in_progress) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof *v4;
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof *v6;
  } else {
    throw std::system_error(EINVAL, std::generic_category(), "not an address: " + address);
  }
  int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  UpstreamConnection connection(fd, false);
  set_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
  set_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
  set_option(fd, IPPROTO_TCP, TCP_KEEPIDLE, 30);
  set_option(fd, IPPROTO_TCP, TCP_KEEPINTVL, 15);
  in_progress = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0) {
    if (errno != EINPROGRESS) throw std::system_error(errno, std::generic_category(), "connect");
    in_progress = true;
  }
  return connection;
}

int connect_result(int fd) {
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
  return error;
}

UpstreamConnection take_idle(const std::string& key) {
  std::deque<Idle>& idle = idle_connections();
  const Clock::time_point now = Clock::now();
  for (size_t i = idle.size(); i-- > 0;) {
    if (idle[i].key != key) continue;
    Idle found = std::move(idle[i]);
    idle.erase(idle.begin() + static_cast<long>(i));
    const auto waited = now - found.since;
    if (waited > kDropAfter || (waited > kCheckAfter && gone_stale(found.connection.fd())))
      continue;  // closed as `found` goes
    found.connection.mark_reused();
    return std::move(found.connection);
  }
  return UpstreamConnection();
}

void keep_idle(const std::string& key, UpstreamConnection connection) {
  std::deque<Idle>& idle = idle_connections();
  const Clock::time_point now = Clock::now();
  while (!idle.empty() && (idle.size() >= kMaxIdle || now - idle.front().since > kDropAfter))
    idle.pop_front();
  idle.push_back(Idle{key, std::move(connection), now});
}

}  // namespace agentrt::providers
