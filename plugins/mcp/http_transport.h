// MCP's streamable HTTP transport: each JSON-RPC message is POSTed to the server's URL,
// and its answer is either one application/json response or a text/event-stream of
// JSON-RPC messages that carries the response with the request's id. A stream that
// ends before that response is taken up again with a GET (Last-Event-ID); the
// server's own requests on a stream are answered with POSTs.
#pragma once

#include "mcp/transport.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

struct curl_slist;

namespace agentrt::mcp {

class HttpTransport : public Transport {
 public:
  // `headers` are "Name: value" lines sent with every request; they hold secrets.
  HttpTransport(std::string url, std::vector<std::string> headers, NotificationFn on_notification);
  // Ends the server's session (end_session).
  ~HttpTransport() override;

  nlohmann::json request(const nlohmann::json& request, const CancelCheck& cancelled,
                         std::chrono::milliseconds timeout) override;
  void notify(const nlohmann::json& notification) override;
  bool usable() const override { return !expired_; }
  void set_protocol_version(const std::string& version) override;
  void wake_all() override {}  // a transfer looks at its cancel check every 50 ms anyway

  struct Exchange;  // one POST's state, shared with libcurl's callbacks

 private:
  // A POST of `body`, or a GET (a resumption) when it is null.
  void transfer(Exchange& exchange, const std::string* body, std::chrono::milliseconds timeout);
  curl_slist* header_list(Exchange& exchange, bool get);
  void end_session() noexcept;
  void check_status(const Exchange& exchange);
  void read_answer(Exchange& exchange);
  void resume(Exchange& exchange, std::chrono::steady_clock::time_point deadline,
              std::chrono::milliseconds timeout);
  void answer_server_requests(Exchange& exchange);

  std::string url_;
  std::vector<std::string> headers_;
  NotificationFn on_notification_;
  std::mutex mutex_;  // guards session_id_ and protocol_version_
  std::string session_id_;
  std::string protocol_version_;
  std::atomic<bool> expired_{false};
};

}  // namespace agentrt::mcp
