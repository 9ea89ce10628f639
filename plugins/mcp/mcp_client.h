// The MCP client of one tool server: connects lazily on first use, (re)initializes
// when its transport went away, keeps the server's tool list until the server says it
// changed, and runs tools/call with cancellation.
#pragma once

#include "mcp/mcp_config.h"
#include "mcp/transport.h"

#include <agentrt/plugin.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace agentrt::mcp {

class McpClient {
 public:
  McpClient(McpConfig config, const sdk::Host& host);
  ~McpClient();

  std::string list_tools();
  void call(const std::string& request_json, sdk::ToolSink& sink);
  void probe();

 private:
  std::shared_ptr<Transport> connect(const CancelCheck& cancelled);
  std::shared_ptr<Transport> open_transport();
  void initialize(Transport& transport, const CancelCheck& cancelled);
  nlohmann::json rpc(Transport& transport, const std::string& method, nlohmann::json params,
                     const CancelCheck& cancelled, std::chrono::milliseconds timeout);
  nlohmann::json fetch_tools(Transport& transport);
  nlohmann::json call_once(const std::string& name, const nlohmann::json& arguments,
                           sdk::ToolSink& sink);
  void on_notification(const nlohmann::json& message);
  std::chrono::milliseconds setup_timeout() const;
  static void wake(void* self);

  McpConfig config_;
  sdk::Host host_;
  // One connect (spawn + initialize) at a time; timed, so that a call waiting for
  // another caller's connect still sees its own cancellation.
  std::timed_mutex connect_mutex_;
  std::mutex transport_mutex_;  // guards transport_ itself, held only briefly
  std::shared_ptr<Transport> transport_;
  std::atomic<int64_t> next_id_{1};
  std::mutex tools_mutex_;
  std::optional<nlohmann::json> tools_;
  std::atomic<bool> tools_stale_{true};
};

}  // namespace agentrt::mcp
