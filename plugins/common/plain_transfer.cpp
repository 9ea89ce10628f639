#include "common/plain_transfer.h"

#include "common/content_encoding.h"
#include "common/secret_wipe.h"

#include <agentrt/plugin.hpp>

#include <strings.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>

namespace agentrt::providers {
namespace {

constexpr size_t kReadBuffer = 16 * 1024;
// Reads of one pass over the socket: what they bring is one fragment, flushed and held
// to the answer's cap (max_answer_bytes) after the pass. An upstream that keeps the
// socket full made a pass unbounded: gigabytes held before the cap was ever checked,
// and every other stream of the loop's thread stalled meanwhile (audit 6b, 1). The
// socket stays readable, and the driver comes back to it at once.
constexpr int kMaxReadsPerPass = 16;

// The thread's read buffer: one for all its transfers, since a read is handed on
// before the next, except when a body sink starts a transfer of its own on the same
// thread, which then reads into a buffer of its own.
class ReadBuffer {
 public:
  ReadBuffer() : slot_(thread_slot()) {
    if (slot_.busy) {
      own_.reset(new char[kReadBuffer]);
    } else {
      slot_.busy = true;
    }
  }
  ~ReadBuffer() {
    if (!own_) slot_.busy = false;
  }
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  char* data() { return own_ ? own_.get() : slot_.bytes; }

 private:
  struct Slot {
    char bytes[kReadBuffer];
    bool busy = false;
  };
  static Slot& thread_slot() {
    thread_local std::unique_ptr<Slot> slot(new Slot);
    return *slot;
  }
  Slot& slot_;
  std::unique_ptr<char[]> own_;
};

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
    // A line break inside a field would start a field nobody wrote. (Two one-byte finds:
    // find_first_of compares each byte with the set, 20 instructions a byte.)
    if (line.find('\r') != std::string::npos || line.find('\n') != std::string::npos)
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

sdk::Error cannot_connect(const PlainHttpTarget& target, int error) {
  return sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                    "cannot connect to upstream: " + target.pool_key + ": " + std::strerror(error));
}

// "localhost" is the loopback address of either family, as libcurl takes it.
const char* address_at(const PlainHttpTarget& target, size_t index) {
  if (target.host == "localhost") return index == 0 ? "127.0.0.1" : index == 1 ? "::1" : nullptr;
  return index == 0 ? target.host.c_str() : nullptr;
}

}  // namespace

PlainTransfer::PlainTransfer(const PlainHttpTarget& target, const HttpRequest& request,
                             BodySink on_body)
    : target_(target),
      request_(request),
      on_body_(std::move(on_body)),
      reader_([this](std::string_view bytes) { take_body(bytes); }),
      connect_started_(Clock::now()),
      last_activity_(connect_started_) {}

PlainTransfer::~PlainTransfer() {
  wipe(head_);
}

void PlainTransfer::start() {
  head_ = request_head(target_, request_);
  connection_ = take_idle(target_.pool_key);
  if (connection_.open()) {
    phase_ = Phase::sending;
    return;
  }
  connect_from(0);
}

// Starts a connect to the address at `index` or a later one; throws when none is left.
void PlainTransfer::connect_from(size_t index) {
  if (index == 0) connect_started_ = Clock::now();
  int error = 0;
  for (address_ = index; const char* address = address_at(target_, address_); ++address_) {
    try {
      bool in_progress = false;
      connection_ = start_connect(address, target_.port, in_progress);
      phase_ = Phase::connecting;
      if (!in_progress) on_connected();
      return;
    } catch (const std::system_error& e) {
      error = e.code().value();
    }
  }
  throw cannot_connect(target_, error);
}

void PlainTransfer::on_connected() {
  phase_ = Phase::sending;
  last_activity_ = Clock::now();
}

void PlainTransfer::on_ready() {
  if (phase_ == Phase::connecting) {
    if (int error = connect_result(connection_.fd())) {
      connection_.close();
      if (address_at(target_, address_ + 1) == nullptr) throw cannot_connect(target_, error);
      connect_from(address_ + 1);
      return;
    }
    on_connected();
  }
  if (phase_ == Phase::sending) {
    send_some();
  } else if (phase_ == Phase::receiving) {
    receive_some();
  }
}

void PlainTransfer::send_some() {
  const std::string& body = request_.body;
  while (sent_ < head_.size() + body.size()) {
    iovec parts[2];
    int count = 0;
    if (sent_ < head_.size())
      parts[count++] = {const_cast<char*>(head_.data()) + sent_, head_.size() - sent_};
    size_t body_sent = sent_ > head_.size() ? sent_ - head_.size() : 0;
    if (body_sent < body.size())
      parts[count++] = {const_cast<char*>(body.data()) + body_sent, body.size() - body_sent};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = static_cast<size_t>(count);
    ssize_t n = ::sendmsg(connection_.fd(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (connection_.reused()) return retry_on_new_connection();
      throw before_response(std::string("send: ") + std::strerror(errno));
    }
    sent_ += static_cast<size_t>(n);
    last_activity_ = Clock::now();
  }
  // The answer cannot be there yet: the driver waits for it rather than read now.
  phase_ = Phase::receiving;
}

void PlainTransfer::receive_some() {
  ReadBuffer buffer;
  for (int reads = 0; reads < kMaxReadsPerPass; ++reads) {
    ssize_t n = ::recv(connection_.fd(), buffer.data(), kReadBuffer, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
      if (!received_ && connection_.reused()) return retry_on_new_connection();
      if (n < 0) fail_receive(std::strerror(errno));
      try {
        reader_.end_of_input();
      } catch (const HttpProtocolError& e) {
        fail_receive(e.what());
      }
      connection_.close();
      phase_ = Phase::done;
      return;
    }
    received_ = true;
    last_activity_ = Clock::now();
    try {
      reader_.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
    } catch (const HttpProtocolError& e) {
      fail_receive(e.what());
    }
    if (reader_.done()) {
      phase_ = Phase::done;
      return;
    }
    // A full buffer may have left more behind; otherwise the driver waits again.
    if (static_cast<size_t>(n) < kReadBuffer) return;
  }
}

// The upstream closed a connection that idled here before it saw this request (or
// before it answered): the request goes again, once, on a new connection.
void PlainTransfer::retry_on_new_connection() {
  connection_.close();
  sent_ = 0;
  connect_from(0);
}

void PlainTransfer::take_body(std::string_view bytes) {
  const long status = reader_.status();
  if (!body_begun_) {
    body_begun_ = true;
    refuse_encoded_body(status, reader_.headers());
  }
  if (status >= 200 && status < 300) {
    on_body_(bytes);
  } else if (response_.body.size() < kMaxErrorBody) {
    response_.body.append(bytes.substr(0, kMaxErrorBody - response_.body.size()));
  }
}

void PlainTransfer::fail_receive(const std::string& detail) const {
  if (!reader_.head_done()) throw before_response(detail);
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "connection to upstream lost mid-response: " + detail,
                   static_cast<int32_t>(reader_.status()));
}

void PlainTransfer::check_limits(Clock::time_point now) const {
  if (!connected()) {
    if (now >= connect_deadline())
      throw sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream connect timed out after " +
                                                std::to_string(request_.connect_timeout_ms) +
                                                " ms");
  } else if (now - last_activity_ > std::chrono::milliseconds(request_.stall_timeout_ms)) {
    throw sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream sent nothing for " +
                                              std::to_string(request_.stall_timeout_ms) + " ms");
  }
}

Clock::time_point PlainTransfer::connect_deadline() const {
  if (connected()) return Clock::time_point::max();
  return connect_started_ + std::chrono::milliseconds(request_.connect_timeout_ms);
}

HttpResponse PlainTransfer::finish() {
  response_.status = reader_.status();
  response_.headers = std::move(reader_.headers());
  if (done() && connection_.open() && reader_.reusable())
    keep_idle(target_.pool_key, std::move(connection_));
  connection_.close();
  return std::move(response_);
}

}  // namespace agentrt::providers
