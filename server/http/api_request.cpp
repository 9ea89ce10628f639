#include "server/http/api_request.h"

#include "server/http/server_session.h"

#include <Poco/Net/HTTPFixedLengthStream.h>

#include <algorithm>
#include <stdexcept>

namespace agentrt::server {

ApiRequest::ApiRequest(ServerSession& session, Poco::Net::HTTPServerResponse& response,
                       const Poco::Net::HTTPServerParams& params)
    : session_(session), response_(response), params_(params) {
  head_ = read_request_head(session, *this);
}

ApiRequest::~ApiRequest() = default;

std::istream& ApiRequest::stream() {
  if (head_.chunked) throw std::logic_error("a chunked body is read by read_request_body");
  if (!body_) {
    body_ = std::make_unique<Poco::Net::HTTPFixedLengthInputStream>(
        session_, static_cast<Poco::Int64>(head_.content_length.value_or(0)));
  }
  return *body_;
}

const Poco::Net::SocketAddress& ApiRequest::clientAddress() const {
  if (!client_) client_ = session_.clientAddress();
  return *client_;
}

const Poco::Net::SocketAddress& ApiRequest::serverAddress() const {
  if (!server_) server_ = session_.serverAddress();
  return *server_;
}

size_t ApiRequest::read_body(char* buffer, size_t length) {
  const int n = session_.read_some(buffer, static_cast<int>(std::min<size_t>(length, 1 << 30)));
  return n > 0 ? static_cast<size_t>(n) : 0;
}

int ApiRequest::next_body_byte() {
  return session_.next_byte();
}

Poco::Net::StreamSocket& ApiRequest::socket() {
  return session_.socket();
}

}  // namespace agentrt::server
