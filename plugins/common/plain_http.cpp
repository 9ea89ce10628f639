#include "common/plain_http.h"

#include "common/curl_transfer.h"
#include "common/plain_transfer.h"

#include <agentrt/plugin.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace agentrt::providers {
namespace {

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

// Drives one PlainTransfer on the calling thread with poll(2): the socket and, when
// the sink can wake the call, the thread's eventfd.
class BlockingDriver {
 public:
  BlockingDriver(const HttpRequest& request, const StreamCallbacks& callbacks)
      : request_(request), callbacks_(callbacks), wake_fd_(thread_wake_fd()) {
    void* context = reinterpret_cast<void*>(static_cast<intptr_t>(wake_fd_));
    waker_ = wake_fd_ >= 0 && callbacks_.set_waker && callbacks_.set_waker(&wake_fd, context);
  }
  ~BlockingDriver() {
    if (waker_) callbacks_.set_waker(nullptr, nullptr);
  }
  BlockingDriver(const BlockingDriver&) = delete;
  BlockingDriver& operator=(const BlockingDriver&) = delete;

  HttpResponse run(PlainTransfer& transfer);

 private:
  // Throws when the call must end now: cancelled, or a limit passed.
  void check(const PlainTransfer& transfer) const;
  long wait_ms(const PlainTransfer& transfer, bool complete) const;
  // Waits until the socket is ready, the waker fires, or `ms` pass; true when ready.
  bool wait(int fd, short events, long ms);

  const HttpRequest& request_;
  const StreamCallbacks& callbacks_;
  const int wake_fd_;
  bool waker_ = false;
};

HttpResponse BlockingDriver::run(PlainTransfer& transfer) {
  transfer.start();
  std::optional<Clock::time_point> complete_at;
  bool ready = transfer.connected();  // a reused or at once connected socket can send
  for (;;) {
    if (ready) {
      // Body bytes reach the decoder from inside this call, and its text the sink
      // right after, before a failure is reported.
      transfer.on_ready();
      if (callbacks_.flush) callbacks_.flush();
      if (transfer.done()) return transfer.finish();
    }
    const bool complete = callbacks_.complete && callbacks_.complete();
    if (complete) {
      if (!complete_at) complete_at = Clock::now();
      // The answer is whole; an upstream that keeps the response open no longer matters.
      if (Clock::now() - *complete_at > kEndGrace) return transfer.finish();
    } else {
      check(transfer);
    }
    ready = wait(transfer.fd(), transfer.events(), wait_ms(transfer, complete));
  }
}

// Until the next check: the usual interval, the end grace's, or the connect's deadline.
long BlockingDriver::wait_ms(const PlainTransfer& transfer, bool complete) const {
  if (complete) return kPollMs;
  const long ms = check_interval_ms(waker_, request_);
  if (transfer.connected()) return ms;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(transfer.connect_deadline() - Clock::now());
  return std::clamp<long>(left.count(), 0, ms);
}

void BlockingDriver::check(const PlainTransfer& transfer) const {
  if (callbacks_.cancelled && callbacks_.cancelled())
    throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
  transfer.check_limits(Clock::now());
}

bool BlockingDriver::wait(int fd, short events, long ms) {
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

}  // namespace

HttpResponse post_plain(const PlainHttpTarget& target, const HttpRequest& request,
                        const StreamCallbacks& callbacks) {
  PlainTransfer transfer(target, request, callbacks.on_body);
  BlockingDriver driver(request, callbacks);
  return driver.run(transfer);
}

}  // namespace agentrt::providers
