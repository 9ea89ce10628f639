// What bench/loop measures, one run at a time: a /chat through agentd, the same two
// steps sent by the bench itself straight to the upstream (the floor, its tool result
// made inline or on a thread of its own), and the tool called straight over MCP.
#pragma once

#include "http_client.h"
#include "loop_upstream.h"
#include "mcp_direct.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace loop_bench {

using Clock = std::chrono::steady_clock;

enum class Kind { chat, floor, floor_thread, tool_http, tool_http_fresh, tool_stdio };
// How agentd reaches a chat scenario's tool server.
enum class Via { none, in_process, stdio, http };

struct Scenario {
  std::string label;
  Kind kind = Kind::chat;
  std::string agent_id;  // chat
  int steps = 1;         // provider calls a run: 2 when the agent's tool is called
  Via via = Via::none;
  // Gathered over the rounds.
  std::vector<double> gaps_us;     // the upstream's loop gaps (chat with a tool, floor)
  std::vector<double> latency_us;  // a whole run as its client saw it
  long cpu_ticks = 0;              // agentd's, over this scenario's blocks
  unsigned runs = 0;
  unsigned errors = 0;
  std::string first_error;

  void clear_figures() {
    gaps_us.clear();
    latency_us.clear();
    cpu_ticks = 0;
    runs = errors = 0;
    first_error.clear();
  }
};

// The bench's side of a run: its connections, and its own MCP sessions.
struct Client {
  HttpClient http;
  std::unique_ptr<McpHttpEcho> mcp_http;
  std::unique_ptr<McpHttpEcho> mcp_http_fresh;
  std::unique_ptr<McpStdioEcho> mcp_stdio;
};

struct Target {
  std::string agentd;    // http://host:port
  std::string token;     // a user token for /chat
  std::string upstream;  // http://127.0.0.1:port/v1
};

// One run of `s`: its time in µs; throws with what went wrong.
double run_once(const Scenario& s, const Target& target, Client& client);

}  // namespace loop_bench
