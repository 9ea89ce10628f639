// The tool's own cost: server-everything's `echo` called straight over MCP, with
// nothing of agentd between, as JSON-RPC tools/call after the initialize handshake.
#pragma once

#include "http_client.h"

#include <sys/types.h>

#include <string>
#include <vector>

namespace loop_bench {

// A session with a streamable HTTP server, its connection kept alive.
class McpHttpEcho {
 public:
  // Throws when the handshake fails. `fresh`: a new connection for every call.
  McpHttpEcho(std::string url, bool fresh);
  // One tools/call of echo, timed from the request to its result: µs; throws on error.
  double call_us();

 private:
  std::string post(const std::string& message);  // the response's JSON-RPC message

  std::string url_;
  std::string session_;
  HttpClient http_;
  int next_id_ = 1;
};

// The server as a child of this process over stdio, newline-delimited JSON-RPC.
class McpStdioEcho {
 public:
  explicit McpStdioEcho(const std::vector<std::string>& argv);  // throws on failure
  ~McpStdioEcho();
  McpStdioEcho(const McpStdioEcho&) = delete;
  McpStdioEcho& operator=(const McpStdioEcho&) = delete;
  double call_us();

 private:
  std::string exchange(const std::string& message, int id);  // the response with `id`
  void send(const std::string& message);

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffered_;
  int next_id_ = 1;
};

}  // namespace loop_bench
