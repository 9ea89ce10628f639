// One POST and its streamed answer over agentd's own HTTP/1.1 client, as a state
// machine that never blocks: whoever drives it waits until its socket is ready for
// events() and calls on_ready(). Two drivers share it: the blocking path's
// post_plain (a poll on the calling thread, plain_http.h) and the transfer loops of
// ChatProvider::start (an epoll set for many calls, transfer_loop.h).
//
// What stays with the driver: calling check_limits() often enough, cancellation, and
// the grace after the end marker. The transfer
// keeps the rest: connecting (an idle connection of the calling thread first, else a
// new one to each address in turn), sending, reading the answer (http_response_reader.h),
// retrying once on a new connection when a reused one fails before any byte of the
// answer, and the errors post_streaming documents, in the same words as libcurl's path.
#pragma once

#include "common/curl_transfer.h"
#include "common/http_response.h"
#include "common/http_response_reader.h"
#include "common/http_stream.h"
#include "common/plain_http_target.h"
#include "common/upstream_connection.h"

#include <functional>
#include <string>
#include <string_view>

namespace agentrt::providers {

class PlainTransfer {
 public:
  using BodySink = std::function<void(std::string_view)>;

  // `target` and `request` must outlive the transfer. 2xx body bytes go to `on_body`
  // (which may throw to end the transfer); another status's body is kept for finish().
  PlainTransfer(const PlainHttpTarget& target, const HttpRequest& request, BodySink on_body);
  ~PlainTransfer();
  PlainTransfer(const PlainTransfer&) = delete;
  PlainTransfer& operator=(const PlainTransfer&) = delete;

  // Takes an idle connection or starts a connect. Throws sdk::Error: UNAVAILABLE when
  // no connect can be started, INVALID_ARGUMENT for a header with a line break.
  void start();
  // The socket to wait on, and for what: POLLIN or POLLOUT (EPOLLIN and EPOLLOUT
  // have the same values). The socket changes when a connect moves to the next
  // address or a stale connection is replaced; -1 once done.
  int fd() const { return connection_.fd(); }
  short events() const { return phase_ == Phase::receiving ? kIn : kOut; }
  // The socket is ready, or failed: advances as far as it can without blocking.
  // Throws sdk::Error for a failed transfer, and what on_body throws.
  void on_ready();

  bool done() const { return phase_ == Phase::done; }
  bool connected() const { return phase_ != Phase::connecting; }
  // Throws Error(TIMEOUT) once the connect took longer than the request allows, or,
  // connected, the upstream was silent for longer.
  void check_limits(Clock::time_point now) const;
  // When the connect in progress runs out of time (the driver checks then); the
  // far future once connected.
  Clock::time_point connect_deadline() const;

  // The answer so far: status, headers, and a non-2xx body. When done() and the
  // connection may carry another request, the connection goes to the thread's idle
  // ones (call from the thread that will use it again); otherwise it is closed.
  HttpResponse finish();

 private:
  enum class Phase { connecting, sending, receiving, done };
  static constexpr short kIn = 0x001;   // POLLIN, EPOLLIN
  static constexpr short kOut = 0x004;  // POLLOUT, EPOLLOUT

  void connect_from(size_t address);
  void on_connected();
  void send_some();
  void receive_some();
  void retry_on_new_connection();
  void take_body(std::string_view bytes);
  [[noreturn]] void fail_receive(const std::string& detail) const;

  const PlainHttpTarget& target_;
  const HttpRequest& request_;
  BodySink on_body_;
  std::string head_;  // holds the key: wiped by the destructor
  size_t sent_ = 0;   // of head_ and then the body
  size_t address_ = 0;
  Phase phase_ = Phase::connecting;
  UpstreamConnection connection_;
  HttpResponseReader reader_;
  HttpResponse response_;
  bool received_ = false;
  bool body_begun_ = false;  // its Content-Encoding checked (content_encoding.h)
  Clock::time_point connect_started_;
  Clock::time_point last_activity_;
};

}  // namespace agentrt::providers
