// A scripted MCP server over streamable HTTP for the API tests, for what a reference
// server does not show: it records every request agentd sends it (the HTTP method, the
// JSON-RPC method, the headers), so a test sees the headers a tool server's references
// resolved to and the session's end. It answers initialize (handing out a session),
// ping, tools/list (one tool, "lookup") and notifications, on 127.0.0.1:<free port>.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace Poco::Net {
class HTTPServer;
}

namespace agentrt::test {

class FakeMcpHttp {
 public:
  struct Request {
    std::string http_method;                     // POST, DELETE, ...
    std::string rpc_method;                      // the JSON-RPC method of a POST; empty otherwise
    std::map<std::string, std::string> headers;  // names in lower case
  };

  FakeMcpHttp();
  ~FakeMcpHttp();
  FakeMcpHttp(const FakeMcpHttp&) = delete;
  FakeMcpHttp& operator=(const FakeMcpHttp&) = delete;

  std::string url() const;  // http://127.0.0.1:<port>/mcp
  std::vector<Request> requests() const;
  // Waits until a recorded request satisfies `match`; false on timeout.
  bool wait_for(const std::function<bool(const Request&)>& match,
                std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

  struct State;  // what the handlers share with the test

 private:
  std::shared_ptr<State> state_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace agentrt::test
