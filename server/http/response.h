// The handler's side of one HTTP response. Normal responses are a complete body sent
// with Content-Length in one write. Sending never throws on a vanished client: the
// response remembers it (client_gone()) and the connection is closed afterwards.
// A stream (begin_stream) sends its head at once; its events are then written to the
// socket by sse_stream.h. Headers stay settable until the first byte is sent, and
// sent() tells the pipeline it can no longer send an error.
#pragma once

#include "server/http/api_error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <iosfwd>
#include <string>

namespace Poco::Net {
class HTTPServerResponse;
}

namespace agentrt::server {

class Response {
 public:
  // While `*draining` is true (a shutdown has begun), responses close their connection.
  Response(Poco::Net::HTTPServerResponse& raw, std::string request_id,
           const std::atomic<bool>* draining = nullptr);
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;

  // Complete responses are then written to `fd` (the request's connection) as one
  // buffer, not through Poco's message streams; `head` (a HEAD request) sends no body.
  void write_to_socket(int fd, bool head);

  // Before sending only. Not the framing fields (Content-Length, Content-Type,
  // Transfer-Encoding), which sending sets.
  void set_header(const std::string& name, const std::string& value);
  // Ends the connection after this response (no keep-alive).
  void close_connection();

  void send_json(int status, const nlohmann::json& body);
  // `json` is JSON text already (core/domain/json_text.h).
  void send_json_text(int status, const std::string& json);
  void send_no_content();  // 204
  // A body of another type than JSON (GET /metrics' text).
  void send_text(int status, const char* content_type, const std::string& body) {
    send_body(status, content_type, body);
  }
  // The documented error body; adds the error's headers.
  void send_error(const ApiError& error);
  // The same with another body: the error shape of the route's family (Router::ErrorBody).
  void send_error(const ApiError& error, const nlohmann::json& body);
  // Sends the status and headers of a streamed response and returns the body stream;
  // every flush() on it sends one chunk. After this the response counts as sent. The
  // body is chunked, but to an HTTP/1.0 request: then it is unframed, and the
  // connection's close ends it (stream_chunked()).
  std::ostream& begin_stream(int status, const char* content_type);
  bool stream_chunked() const { return stream_chunked_; }

  // Called once, just before a complete body goes to the socket (never for a stream,
  // whose end Poco writes after the handler returns): what a client must be able to see
  // once it holds the response, such as the request's count in /metrics, is done here.
  using BeforeSend = void (*)(void* arg);
  void before_complete_send(BeforeSend fn, void* arg) {
    before_send_ = fn;
    before_send_arg_ = arg;
  }

  bool sent() const { return sent_; }
  bool client_gone() const { return client_gone_; }
  bool keep_alive() const;
  int status() const;
  const std::string& request_id() const { return request_id_; }

  // The underlying response.
  Poco::Net::HTTPServerResponse& raw() { return raw_; }

 private:
  void send_body(int status, const char* content_type, const std::string& body);
  bool send_direct(int status, const char* content_type, const std::string& body);

  Poco::Net::HTTPServerResponse& raw_;
  std::string request_id_;
  const std::atomic<bool>* draining_;
  bool sent_ = false;
  bool client_gone_ = false;
  int fd_ = -1;
  bool head_ = false;
  bool stream_chunked_ = true;
  BeforeSend before_send_ = nullptr;
  void* before_send_arg_ = nullptr;
};

}  // namespace agentrt::server
