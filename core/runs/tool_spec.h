// Client tools (docs/tools.md): what a run offers the model, how it may choose among
// them, and the calls the model makes. Plain values, shared by the request, the
// agent, the provider request and the run's events.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace agentrt::core {

struct ToolServer;  // core/tools/tool_servers.h

// {"type":"function","name","description"?,"parameters"?}: run by the caller.
struct ToolSpec {
  std::string name;         // [A-Za-z0-9_-]{1,64}
  std::string description;  // empty when none was given
  std::string parameters;   // a JSON Schema object, as compact JSON text
};

// "auto" (the default), "none", "required", or {"type":"tool","name"}.
struct ToolChoice {
  std::string mode = "auto";  // auto | none | required | tool
  std::string name;           // mode "tool"
};

// A reference to server tools an agent offers (docs/tools.md, "Agents"):
// {"type":"mcp","server","tools"?,"require_approval"?} or {"type":"builtin","name"}.
struct ToolRef {
  std::string type;                // mcp | builtin
  std::string server;              // mcp: the tool server's name
  std::vector<std::string> tools;  // mcp: only these of its tools; empty: all of them
  std::string require_approval;    // mcp: always | never; empty: the server entry's
  std::string name;                // builtin: memory_search | memory_save
};

// Who runs a tool a run offers: the caller (a client tool), a tool server, or agentrt
// itself (a built-in tool).
struct ToolRoute {
  enum class Executor { client, server, builtin };
  Executor executor = Executor::client;
  std::shared_ptr<const ToolServer> server;  // Executor::server
  bool require_approval = false;             // a server tool a person must approve first
};

// One call the model made: `arguments` is the JSON text it wrote, as written.
struct ToolCall {
  std::string id, name, arguments;
};

// Whether `name` may name a tool: 1 to 64 of A-Z, a-z, 0-9, '_' and '-', what every
// vendor accepts.
bool valid_tool_name(const std::string& name);

// The tool named `name` among `tools`, or nullptr.
const ToolSpec* find_tool(const std::vector<ToolSpec>& tools, const std::string& name);

}  // namespace agentrt::core
