// An agent: a reusable persona of a cell (agent_service.h keeps them).
#pragma once

#include <string>
#include <vector>

namespace agentrt::core {

struct Agent {
  std::string cell, id, name, model, system_prompt, description, namespace_;
  std::vector<std::string> memory_layers;
  std::string created_at, updated_at;
};

}  // namespace agentrt::core
