// Client tools (docs/tools.md): what a run offers the model, how it may choose among
// them, and the calls the model makes. Plain values, shared by the request, the
// agent, the provider request and the run's events.
#pragma once

#include <string>
#include <vector>

namespace agentrt::core {

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
