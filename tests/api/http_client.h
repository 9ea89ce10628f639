// A deliberately plain HTTP/1.1 client for tests: it writes exactly the bytes a test
// asks for and reads responses off the socket itself, so tests can send what a real
// client library would refuse to (oversized or malformed bodies, odd targets) and see
// whether the server closed the connection.
#pragma once

#include <nlohmann/json.hpp>

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;

  // "" when absent; `name` in any case.
  std::string header(const std::string& name) const;
  bool has_header(const std::string& name) const;
  // Whether the response says "Connection: close" (in any case).
  bool closes_connection() const;
  // The body parsed as JSON (once; a discarded value when it does not parse). A
  // reference into this response, so `r.json()["a"]` may be iterated safely, and
  // mutable, so that a missing key reads as null instead of asserting.
  nlohmann::json& json() const;

 private:
  mutable std::optional<nlohmann::json> parsed_;
};

// One keep-alive connection.
class HttpConnection {
 public:
  explicit HttpConnection(uint16_t port, const std::string& host = "127.0.0.1");

  // Sends a request with a Content-Length body (none for an empty body unless
  // `headers` say otherwise) and reads the response.
  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body = {}, const Headers& headers = {});

  // Sends a request whose body goes chunked, `chunk_size` bytes a chunk.
  HttpResponse request_chunked(const std::string& method, const std::string& target,
                               const std::string& body, std::size_t chunk_size,
                               const Headers& headers = {});

  void send_raw(const std::string& bytes);
  // Reads one response; throws std::runtime_error when the connection ends first.
  HttpResponse read_response(bool head_request = false);

  // True when the server ends the connection (EOF or reset) within `wait`.
  bool closed_by_server(std::chrono::milliseconds wait = std::chrono::milliseconds(2000));

  Poco::Net::StreamSocket& socket() { return socket_; }

 private:
  std::string read_until_headers_end();
  std::string read_exactly(std::size_t n);
  std::string read_chunked();
  std::string read_line();
  bool fill();

  Poco::Net::StreamSocket socket_;
  std::string buffer_;
};

// A fresh connection for one request.
HttpResponse http_request(uint16_t port, const std::string& method, const std::string& target,
                          const std::string& body = {}, const Headers& headers = {});

}  // namespace agentrt::test
