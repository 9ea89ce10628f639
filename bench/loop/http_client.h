// A blocking HTTP/1.1 client over libcurl, one connection kept alive per object: the
// bench's requests to agentd, to its upstream (the floor) and to an MCP server.
#pragma once

#include <string>
#include <vector>

typedef void CURL;

namespace loop_bench {

struct HttpResponse {
  long status = 0;  // 0: no response (the error is in `body`)
  std::string headers;
  std::string body;
  // The first value of a header (case-insensitive name), or empty.
  std::string header(const std::string& name) const;
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // A new connection for every request, closed after it, as a client that cannot keep
  // one would.
  void fresh_connections() { fresh_ = true; }

  HttpResponse request(const std::string& method, const std::string& url, const std::string& body,
                       const std::vector<std::string>& headers = {});

 private:
  CURL* easy_;
  bool fresh_ = false;
};

}  // namespace loop_bench
