// An agent: a reusable persona of a cell (agent_service.h keeps them).
#pragma once

#include "core/runs/tool_spec.h"

#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

struct Agent {
  std::string cell, id, name, model, system_prompt, description, namespace_;
  std::vector<std::string> memory_layers;
  std::vector<ToolSpec> tools;       // client tools its runs offer (docs/tools.md)
  std::vector<ToolRef> tool_refs;    // server tools its runs offer
  std::optional<int64_t> max_steps;  // its runs' default; none: 8
  std::string created_at, updated_at;
};

}  // namespace agentrt::core
