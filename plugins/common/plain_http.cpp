#include "common/plain_http.h"

#include "common/curl_transfer.h"
#include "common/http_response_reader.h"
#include "common/secret_wipe.h"
#include "common/upstream_connection.h"

#include <agentrt/plugin.hpp>

#include <poll.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>

namespace agentrt::providers {
namespace {

constexpr size_t kReadBuffer = 16 * 1024;

// A reused connection failed before any byte of the answer: the upstream had closed
// it while it was idle. The call goes once more, on a new connection.
struct StaleConnection {};

// The eventfd the sink's waker writes to, one a thread for the thread's life.
int thread_wake_fd() {
  struct WakeFd {
    int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    ~WakeFd() {
      if (fd >= 0) ::close(fd);
    }
  };
  thread_local WakeFd wake;
  return wake.fd;
}

void wake_fd(void* context) {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n =
      ::write(static_cast<int>(reinterpret_cast<intptr_t>(context)), &one, sizeof one);
}

// The request line and header fields, as libcurl would send them. Holds the key.
std::string request_head(const PlainHttpTarget& target, const HttpRequest& request) {
  std::string head;
  head.reserve(256 + target.target.size());
  head.append("POST ").append(target.target).append(" HTTP/1.1\r\nHost: ");
  head.append(target.host_header).append("\r\n");
  if (!request.user_agent.empty())
    head.append("User-Agent: ").append(request.user_agent).append("\r\n");
  bool accept = false;
  for (const std::string& line : request.headers) {
    // A line break inside a field would start a field nobody wrote.
    if (line.find_first_of("\r\n") != std::string::npos)
      throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "a request header holds a line break");
    accept = accept || strncasecmp(line.c_str(), "accept:", 7) == 0;
    head.append(line).append("\r\n");
  }
  if (!accept) head.append("Accept: */*\r\n");
  head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n\r\n");
  return head;
}

sdk::Error before_response(const std::string& detail) {
  return sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                    "upstream connection failed before any response: " + detail);
}

class PlainCall {
 public:
  PlainCall(const PlainHttpTarget& target, const HttpRequest& request,
            const StreamCallbacks& callbacks)
      : target_(target), request_(request), callbacks_(callbacks), wake_fd_(thread_wake_fd()) {
    waker_ =
        wake_fd_ >= 0 && callbacks_.set_waker &&
        callbacks_.set_waker(&wake_fd, reinterpret_cast<void*>(static_cast<intptr_t>(wake_fd_)));
  }
  ~PlainCall() {
    if (waker_) callbacks_.set_waker(nullptr, nullptr);
  }
  PlainCall(const PlainCall&) = delete;
  PlainCall& operator=(const PlainCall&) = delete;

  HttpResponse run();

 private:
  UpstreamConnection connect();
  bool connected_in_time(int fd, Clock::time_point deadline);
  void send_all(const UpstreamConnection& connection, const std::string& head);
  HttpResponse receive(UpstreamConnection& connection);
  void take_body(HttpResponse& response, long status, std::string_view bytes);
  HttpResponse finish(UpstreamConnection& connection, HttpResponseReader& reader,
                      HttpResponse& response);
  [[noreturn]] void fail_receive(const HttpResponseReader& reader, const std::string& detail);
  // Waits until `fd` is ready for `events`, the waker fires, or `ms` pass; true when
  // `fd` is ready.
  bool wait(int fd, short events, long ms);
  long interval_ms() const { return check_interval_ms(waker_, request_); }
  void check_cancel() const;
  void check_stall(Clock::time_point last_activity) const;

  const PlainHttpTarget& target_;
  const HttpRequest& request_;
  const StreamCallbacks& callbacks_;
  const int wake_fd_;
  bool waker_ = false;
};

HttpResponse PlainCall::run() {
  std::string head = request_head(target_, request_);
  WipeOnExit wipe_head(head);
  UpstreamConnection connection = take_idle(target_.pool_key);
  for (;;) {
    if (!connection.open()) connection = connect();
    try {
      send_all(connection, head);
      return receive(connection);
    } catch (const StaleConnection&) {
      connection.close();  // thrown only for a reused one: the next is new
    }
  }
}

UpstreamConnection PlainCall::connect() {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(request_.connect_timeout_ms);
  // "localhost" is the loopback address of either family, as libcurl takes it.
  const bool local = target_.host == "localhost";
  int error = 0;
  for (const std::string& address : local ? std::vector<std::string>{"127.0.0.1", "::1"}
                                          : std::vector<std::string>{target_.host}) {
    try {
      bool in_progress = false;
      UpstreamConnection connection = start_connect(address, target_.port, in_progress);
      if (in_progress && !connected_in_time(connection.fd(), deadline))
        throw sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream connect timed out after " +
                                                  std::to_string(request_.connect_timeout_ms) +
                                                  " ms: " + target_.pool_key);
      error = in_progress ? connect_result(connection.fd()) : 0;
      if (error == 0) return connection;
    } catch (const std::system_error& e) {
      error = e.code().value();
    }
  }
  throw sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                   "cannot connect to upstream: " + target_.pool_key + ": " + std::strerror(error));
}

bool PlainCall::connected_in_time(int fd, Clock::time_point deadline) {
  for (;;) {
    check_cancel();
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    if (wait(fd, POLLOUT, std::min<long>(left.count(), interval_ms()))) return true;
  }
}

void PlainCall::send_all(const UpstreamConnection& connection, const std::string& head) {
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(request_.body.data()), request_.body.size()}};
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = request_.body.empty() ? 1 : 2;
  Clock::time_point last_activity = Clock::now();
  while (message.msg_iovlen > 0) {
    ssize_t sent = ::sendmsg(connection.fd(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) {
      last_activity = Clock::now();
      for (auto n = static_cast<size_t>(sent); n > 0;) {
        iovec& part = *message.msg_iov;
        if (n < part.iov_len) {
          part.iov_base = static_cast<char*>(part.iov_base) + n;
          part.iov_len -= n;
          break;
        }
        n -= part.iov_len;
        ++message.msg_iov;
        --message.msg_iovlen;
      }
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      if (connection.reused()) throw StaleConnection{};
      throw before_response(std::string("send: ") + std::strerror(errno));
    }
    check_cancel();
    check_stall(last_activity);
    wait(connection.fd(), POLLOUT, interval_ms());
  }
}

HttpResponse PlainCall::receive(UpstreamConnection& connection) {
  HttpResponse response;
  HttpResponseReader reader(
      [&](std::string_view bytes) { take_body(response, reader.status(), bytes); });
  std::unique_ptr<char[]> buffer(new char[kReadBuffer]);
  bool received = false;
  Clock::time_point last_activity = Clock::now();
  std::optional<Clock::time_point> complete_at;
  bool readable = false;  // the answer cannot be there before the first wait
  for (;;) {
    if (readable) {
      ssize_t n = ::recv(connection.fd(), buffer.get(), kReadBuffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        if (!received && connection.reused()) throw StaleConnection{};
        if (n < 0) fail_receive(reader, std::strerror(errno));
        try {
          reader.end_of_input();
        } catch (const HttpProtocolError& e) {
          fail_receive(reader, e.what());
        }
        return finish(connection, reader, response);
      }
      if (n > 0) {
        received = true;
        last_activity = Clock::now();
        try {
          reader.feed(std::string_view(buffer.get(), static_cast<size_t>(n)));
        } catch (const HttpProtocolError& e) {
          fail_receive(reader, e.what());
        }
        if (callbacks_.flush) callbacks_.flush();
        if (reader.done()) return finish(connection, reader, response);
        // A full buffer may have left more behind: read again before waiting.
        if (static_cast<size_t>(n) == kReadBuffer) continue;
      }
    }
    const bool complete = callbacks_.complete && callbacks_.complete();
    if (complete) {
      if (!complete_at) complete_at = Clock::now();
      if (Clock::now() - *complete_at > kEndGrace) {
        connection.close();  // the upstream lingers: it must not keep this connection
        return finish(connection, reader, response);
      }
    } else {
      check_cancel();
      check_stall(last_activity);
    }
    readable = wait(connection.fd(), POLLIN, complete ? kPollMs : interval_ms());
  }
}

void PlainCall::take_body(HttpResponse& response, long status, std::string_view bytes) {
  if (status >= 200 && status < 300) {
    callbacks_.on_body(bytes);
  } else if (response.body.size() < kMaxErrorBody) {
    response.body.append(bytes.substr(0, kMaxErrorBody - response.body.size()));
  }
}

HttpResponse PlainCall::finish(UpstreamConnection& connection, HttpResponseReader& reader,
                               HttpResponse& response) {
  response.status = reader.status();
  response.headers = std::move(reader.headers());
  if (connection.open() && reader.reusable()) keep_idle(target_.pool_key, std::move(connection));
  return std::move(response);
}

void PlainCall::fail_receive(const HttpResponseReader& reader, const std::string& detail) {
  if (!reader.head_done()) throw before_response(detail);
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "connection to upstream lost mid-response: " + detail,
                   static_cast<int32_t>(reader.status()));
}

bool PlainCall::wait(int fd, short events, long ms) {
  pollfd fds[2] = {{fd, events, 0}, {wake_fd_, POLLIN, 0}};
  if (::poll(fds, waker_ ? 2 : 1, static_cast<int>(ms)) < 0) {
    if (errno == EINTR) return false;
    throw sdk::Error(AGENTRT_ERR_INTERNAL, std::string("poll: ") + std::strerror(errno));
  }
  if (waker_ && fds[1].revents != 0) {
    uint64_t count = 0;
    [[maybe_unused]] ssize_t n = ::read(wake_fd_, &count, sizeof count);
  }
  return fds[0].revents != 0;
}

void PlainCall::check_cancel() const {
  if (callbacks_.cancelled && callbacks_.cancelled())
    throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
}

void PlainCall::check_stall(Clock::time_point last_activity) const {
  if (Clock::now() - last_activity > std::chrono::milliseconds(request_.stall_timeout_ms))
    throw sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream sent nothing for " +
                                              std::to_string(request_.stall_timeout_ms) + " ms");
}

}  // namespace

HttpResponse post_plain(const PlainHttpTarget& target, const HttpRequest& request,
                        const StreamCallbacks& callbacks) {
  PlainCall call(target, request, callbacks);
  return call.run();
}

}  // namespace agentrt::providers
