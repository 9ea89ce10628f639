#include "server/http/response.h"

#include "core/log/logger.h"
#include "server/http/ascii_case.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <sys/socket.h>

#include <cerrno>

#include <charconv>
#include <ostream>
#include <stdexcept>

namespace agentrt::server {
namespace {

bool is_framing_field(std::string_view name) {
  return equals_ignoring_case(name, "Content-Length") ||
         equals_ignoring_case(name, "Content-Type") ||
         equals_ignoring_case(name, "Transfer-Encoding");
}

}  // namespace

Response::Response(Poco::Net::HTTPServerResponse& raw, std::string request_id,
                   const std::atomic<bool>* draining)
    : raw_(raw), request_id_(std::move(request_id)), draining_(draining) {
  // Set first, so that every response, including ones a later streaming writer sends,
  // carries it.
  raw_.set("X-Request-Id", request_id_);
}

void Response::write_to_socket(int fd, bool head) {
  fd_ = fd;
  head_ = head;
}

void Response::set_header(const std::string& name, const std::string& value) {
  if (sent_) throw std::logic_error("header '" + name + "' set after the response was sent");
  if (is_framing_field(name)) throw std::logic_error("header '" + name + "' is set by sending");
  raw_.set(name, value);
}

void Response::close_connection() {
  raw_.setKeepAlive(false);
}

bool Response::keep_alive() const {
  return raw_.getKeepAlive();
}

int Response::status() const {
  return static_cast<int>(raw_.getStatus());
}

void Response::send_json(int status, const nlohmann::json& body) {
  // error_handler_t::replace: a string with invalid UTF-8 must not turn a response
  // into an exception after the handler is done.
  send_body(status, "application/json",
            body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void Response::send_json_text(int status, const std::string& json) {
  send_body(status, "application/json", json);
}

void Response::send_no_content() {
  send_body(204, nullptr, std::string());
}

void Response::send_error(const ApiError& error) {
  send_error(error, error_body(error, request_id_));
}

void Response::send_error(const ApiError& error, const nlohmann::json& body) {
  if (!sent_) {
    for (const auto& [name, value] : error.headers()) set_header(name, value);
  }
  send_json(error.http_status(), body);
}

std::ostream& Response::begin_stream(int status, const char* content_type) {
  if (sent_) throw std::logic_error("response sent twice");
  sent_ = true;
  if (draining_ != nullptr && *draining_) raw_.setKeepAlive(false);
  raw_.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  // HTTP/1.0 has no chunked coding (RFC 9112 6.1: a server must not send it to a 1.0
  // request): the body is the bytes themselves, and the connection's close ends it.
  stream_chunked_ = raw_.getVersion() != Poco::Net::HTTPMessage::HTTP_1_0;
  if (!stream_chunked_) raw_.setKeepAlive(false);
  raw_.setChunkedTransferEncoding(stream_chunked_);
  raw_.setContentType(content_type);
  raw_.set("Cache-Control", "no-cache");
  raw_.set("X-Accel-Buffering", "no");  // proxies such as nginx must not hold events back
  std::ostream& out = raw_.send();
  out.flush();  // the headers go now, not with the first event
  if (!out.good()) {
    client_gone_ = true;
    raw_.setKeepAlive(false);
  }
  return out;
}

void Response::send_body(int status, const char* content_type, const std::string& body) {
  if (sent_) throw std::logic_error("response sent twice");
  sent_ = true;
  // Checked now rather than when the request arrived: a request that was running when
  // the shutdown began must still let its connection go.
  if (draining_ != nullptr && *draining_) raw_.setKeepAlive(false);
  raw_.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  if (before_send_ != nullptr) before_send_(before_send_arg_);
  if (fd_ >= 0) {
    if (!send_direct(status, content_type, body)) {
      client_gone_ = true;
      raw_.setKeepAlive(false);
      core::log_debug("client gone while sending", {{"request_id", request_id_}});
    }
    return;
  }
  raw_.setChunkedTransferEncoding(false);
  if (content_type != nullptr) raw_.setContentType(content_type);
  if (status == 204) {
    raw_.erase(Poco::Net::HTTPMessage::CONTENT_LENGTH);
  } else {
    raw_.setContentLength64(static_cast<Poco::Int64>(body.size()));
  }
  try {
    // send() + flush() rather than sendBuffer(): sendBuffer leaves the bytes in a
    // buffer until the response object dies, and a lingering close needs them on the
    // wire first. Headers and a small body still go out in one write.
    std::ostream& out = raw_.send();
    if (status != 204) out.write(body.data(), static_cast<std::streamsize>(body.size()));
    out.flush();
    if (!out.good()) throw Poco::IOException("response stream went bad");
  } catch (const Poco::Exception& e) {
    client_gone_ = true;
    raw_.setKeepAlive(false);
    core::log_debug("client gone while sending",
                    {{"request_id", request_id_}, {"error", e.what()}});
  }
}

// What Poco's send() writes (HTTPResponse::write, then the body), built in one buffer
// and sent with one call: Poco's header and body streams were 2% of agentd's CPU at 16
// concurrent /chat. The framing fields are written here rather than set on the raw
// response first: each of Poco's setters looks the field up among the others. The
// socket's send timeout (ApiConnectionFactory) bounds the wait for a client that does
// not read.
bool Response::send_direct(int status, const char* content_type, const std::string& body) {
  const bool with_body = !head_ && status != 204;
  std::string out;
  out.reserve(192 + (with_body ? body.size() : 0));
  out += raw_.getVersion();
  out += ' ';
  out += std::to_string(status);
  out += ' ';
  out += raw_.getReason();
  out += "\r\n";
  for (const auto& [name, value] : raw_) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (content_type != nullptr) {
    out += "Content-Type: ";
    out += content_type;
    out += "\r\n";
  }
  if (status != 204) {
    char digits[24];
    out += "Content-Length: ";
    out.append(digits, std::to_chars(digits, digits + sizeof digits, body.size()).ptr);
    out += "\r\n";
  }
  out += "\r\n";
  if (with_body) out += body;
  for (size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace agentrt::server
