// A request as the connection loop hands it to the pipeline: the head read by
// request_head.h, the body read by body_reader.h only when asked for. Replaces Poco's
// HTTPServerRequestImpl, which also looked up both socket addresses (two system calls)
// for every request; here they are looked up when asked for.
#pragma once

#include "server/http/request_head.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <istream>
#include <memory>
#include <optional>

namespace agentrt::server {

class ServerSession;

class ApiRequest final : public Poco::Net::HTTPServerRequest {
 public:
  // Reads the request head from `session` (throws as read_request_head does).
  ApiRequest(ServerSession& session, Poco::Net::HTTPServerResponse& response,
             const Poco::Net::HTTPServerParams& params);
  ~ApiRequest() override;
  ApiRequest(const ApiRequest&) = delete;
  ApiRequest& operator=(const ApiRequest&) = delete;

  // What the head says of the body, the connection and the fields every request is
  // asked for (request_head.h).
  const RequestHead& head() const { return head_; }

  // Poco's view of the body: Content-Length bytes, or (neither header, RFC 9112 6.3)
  // none. A chunked body is never read through it (Poco's decoder is lax: see
  // chunked_body.h): asked for one, it throws.
  std::istream& stream() override;
  const Poco::Net::SocketAddress& clientAddress() const override;
  const Poco::Net::SocketAddress& serverAddress() const override;
  const Poco::Net::HTTPServerParams& serverParams() const override { return params_; }
  Poco::Net::HTTPServerResponse& response() const override { return response_; }
  bool secure() const override { return false; }

  // Up to `length` body bytes of a Content-Length body, without stream(): an istream
  // per request costs more than reading a small body. 0 at the connection's end; throws
  // what the session's reads throw. Never mixed with stream() for one request.
  size_t read_body(char* buffer, size_t length);
  // The body's next byte, EOF at the connection's end: a chunked body's framing is read
  // through it (chunked_body.h), so nothing past the body is taken.
  int next_body_byte();

  Poco::Net::StreamSocket& socket();

 private:
  ServerSession& session_;
  Poco::Net::HTTPServerResponse& response_;
  const Poco::Net::HTTPServerParams& params_;
  RequestHead head_;
  std::unique_ptr<std::istream> body_;
  mutable std::optional<Poco::Net::SocketAddress> client_, server_;
};

}  // namespace agentrt::server
