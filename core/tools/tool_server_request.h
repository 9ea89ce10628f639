// One tool server as POST /admin/tool-servers takes it: an MCP server over streamable
// HTTP, checked field by field before anything is made or stored.
#pragma once

#include "core/config/config.h"

#include <nlohmann/json.hpp>

#include <cstddef>

namespace agentrt::core {

// Parses `servers[index]` of the request: {"name","type":"mcp","url","headers"?,
// "require_approval"?,"timeout_ms"?}. The entry the mcp plugin is made with holds the
// header references as given (the plugin resolves them through the host) and every
// default written out. Throws invalid naming the field ("servers[1].url"); `command`,
// `env` and `cwd` are refused, since the API never starts a process.
ToolServerConfig parse_tool_server_request(const nlohmann::json& body, size_t index);

// The config of an entry the API saved earlier, as it was stored.
ToolServerConfig stored_tool_server(const std::string& name, const nlohmann::json& entry);

}  // namespace agentrt::core
