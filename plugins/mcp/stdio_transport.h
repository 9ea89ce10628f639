// MCP over stdio: newline-delimited JSON-RPC 2.0 on the child's stdin and stdout. A
// reader thread hands each response to the request waiting on its id and passes the
// server's notifications on; another turns the child's stderr into WARN log lines.
#pragma once

#include "mcp/child_process.h"
#include "mcp/transport.h"

#include <agentrt/plugin.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace agentrt::mcp {

class StdioTransport : public Transport {
 public:
  // Starts the child; throws Error(UNAVAILABLE) when it cannot be started.
  StdioTransport(const ChildSpec& spec, const sdk::Host& host, std::string label,
                 NotificationFn on_notification);
  ~StdioTransport() override;

  nlohmann::json request(const nlohmann::json& request, const CancelCheck& cancelled,
                         std::chrono::milliseconds timeout) override;
  void notify(const nlohmann::json& notification) override;
  bool usable() const override { return !exited_; }
  void wake_all() override { cv_.notify_all(); }

 private:
  void send(const nlohmann::json& message);
  void read_stdout();
  void read_stderr();
  void dispatch(const std::string& line);
  void answer_server_request(const nlohmann::json& message);

  sdk::Host host_;
  std::string label_;
  NotificationFn on_notification_;
  std::unique_ptr<ChildProcess> child_;  // set before any other thread reads it
  std::mutex mutex_;                     // guards responses_
  std::condition_variable cv_;
  // Waiting requests by their id as JSON text; set once the response came.
  std::map<std::string, std::optional<nlohmann::json>> responses_;
  std::mutex write_mutex_;  // one message at a time on stdin
  std::atomic<bool> exited_{false};
  std::atomic<bool> stopping_{false};
  bool warned_garbage_ = false;  // reader thread only
  std::thread stdout_reader_;
  std::thread stderr_reader_;
};

}  // namespace agentrt::mcp
