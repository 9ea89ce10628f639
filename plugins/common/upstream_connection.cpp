#include "common/upstream_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <utility>
#include <vector>

namespace agentrt::providers {
namespace {

using Clock = std::chrono::steady_clock;

// A thread calls few upstreams; more idle connections would only hold descriptors.
constexpr size_t kMaxIdle = 4;
// Servers close idle connections after a few seconds (Node's default is 5 s). One idle
// longer than this is checked before use, and one idle for very long is not kept.
constexpr auto kCheckAfter = std::chrono::seconds(1);
constexpr auto kDropAfter = std::chrono::seconds(60);

struct Idle {
  std::string key;
  UpstreamConnection connection;
  Clock::time_point since;
};

std::vector<Idle>& idle_connections() {
  thread_local std::vector<Idle> idle;
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
  std::vector<Idle>& idle = idle_connections();
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
  std::vector<Idle>& idle = idle_connections();
  if (idle.size() >= kMaxIdle) idle.erase(idle.begin());
  idle.push_back(Idle{key, std::move(connection), Clock::now()});
}

}  // namespace agentrt::providers
