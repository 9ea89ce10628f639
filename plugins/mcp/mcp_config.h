// One tool_servers entry, checked and with its header secrets resolved.
#pragma once

#include "mcp/child_process.h"

#include <agentrt/plugin.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::mcp {

struct McpConfig {
  std::string name;  // for log lines; "mcp" when the entry has none
  std::string url;   // streamable HTTP when set, else stdio through `child`
  // Resolved "Name: value" lines; they hold secrets, so never log or show them.
  std::vector<std::string> headers;
  ChildSpec child;
  std::chrono::milliseconds timeout{60000};
};

// Throws Error(INVALID_ARGUMENT) naming what is wrong (never a secret's value), or the
// host's error when a header's secret cannot be resolved.
McpConfig parse_config(const std::string& config_json, const sdk::Host& host);

}  // namespace agentrt::mcp
