// What the MCP client needs from a transport (stdio or streamable HTTP): send a
// JSON-RPC request and wait for its response, send a notification, and tell whether
// the connection is still usable. Both transports are used from several calls at once.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>

namespace agentrt::mcp {

// Polled while a request waits; true stops the wait with AGENTRT_ERR_CANCELLED.
using CancelCheck = std::function<bool()>;

// Notifications the server sends on its own (e.g. notifications/tools/list_changed).
using NotificationFn = std::function<void(const nlohmann::json&)>;

// The answer to a request the server sends the client. The client declares no
// capabilities, so it answers ping and refuses the rest, rather than leave the server
// waiting (and the tool call that made it ask with it).
inline nlohmann::json answer_to_server_request(const nlohmann::json& request) {
  nlohmann::json reply = {{"jsonrpc", "2.0"}, {"id", request["id"]}};
  if (request["method"] == "ping")
    reply["result"] = nlohmann::json::object();
  else
    reply["error"] = {{"code", -32601}, {"message", "method not supported by agentrt"}};
  return reply;
}

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends `request` (which carries "id") and answers the response with that id.
  // Throws Error: CANCELLED once `cancelled()`, TIMEOUT after `timeout`, UNAVAILABLE
  // when the server went away.
  virtual nlohmann::json request(const nlohmann::json& request, const CancelCheck& cancelled,
                                 std::chrono::milliseconds timeout) = 0;
  virtual void notify(const nlohmann::json& notification) = 0;
  // False once the server is known gone; the client then makes a new transport.
  virtual bool usable() const = 0;
  // Set after initialize: streamable HTTP sends it as MCP-Protocol-Version.
  virtual void set_protocol_version(const std::string& version) { (void)version; }
  // Wakes every waiting request (the host's waker): they look at their cancel check.
  virtual void wake_all() = 0;
};

}  // namespace agentrt::mcp
