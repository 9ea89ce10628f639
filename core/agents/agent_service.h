// Agents: reusable personas of a cell. An agent has a name (unique in its cell), an
// optional default model, a system prompt, a description, the memory namespace its
// agent_memory lives in (its id unless set), and the memory layers its runs may see.
#pragma once

#include "core/agents/agent.h"
#include "core/agents/agent_cache.h"
#include "core/domain/paging.h"
#include "core/runs/agent_tools.h"
#include "core/store/state_store.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

nlohmann::json to_json(const Agent& agent);

// The layers an agent's runs see unless it says otherwise.
const std::vector<std::string>& default_agent_layers();

class AgentService {
 public:
  // Called with (cell, namespace) after an agent is deleted, to drop its agent_memory,
  // unless another agent of the cell uses the namespace.
  using NamespaceCleanup = std::function<void(const std::string&, const std::string&)>;

  // Whether a provider offers a model now.
  using ModelCheck = std::function<bool(const std::string&)>;

  // Refuses (400) server tools an agent is given that do not exist or clash; asked only
  // for a body that sets `tools`, outside the store's transaction (it may ask the tool
  // servers for their tools).
  using ToolCheck = std::function<void(const AgentTools&)>;

  explicit AgentService(StateStore& store) : store_(store) {}
  void on_deleted(NamespaceCleanup cleanup) { cleanup_ = std::move(cleanup); }
  // A model an agent is given must be offered then (400 otherwise), as a run's must;
  // one that stops being offered later fails the agent's runs, not its other updates.
  void check_models_with(ModelCheck known) { known_model_ = std::move(known); }
  void check_tools_with(ToolCheck check) { check_tools_ = std::move(check); }

  // `cell_seq`: the incarnation of the cell the request was admitted to (Principal).
  Agent create(const std::string& cell, const nlohmann::json& body,
               std::optional<int64_t> cell_seq = std::nullopt);  // 400, 404, 409
  // Shared with the cache, which keeps it as it was read: never changed in place.
  std::shared_ptr<const Agent> find(const std::string& cell, const std::string& id) const;
  nlohmann::json list(const std::string& cell, const PageRequest& page) const;
  Agent update(const std::string& cell, const std::string& id, const nlohmann::json& body);
  void remove(const std::string& cell, const std::string& id);  // 404
  static void remove_cell(Connection& db, const std::string& cell);
  // Once a cell's deletion is committed.
  void forget_cell(const std::string& cell) { cache_.forget_cell(cell); }

 private:
  // Why the body's `model` is refused when no provider offers it, or nullopt; throws
  // invalid (400) for an empty one.
  std::optional<std::string> model_problem(const nlohmann::json& body) const;
  void check_tools(const nlohmann::json& body) const;

  StateStore& store_;
  NamespaceCleanup cleanup_;
  ModelCheck known_model_;
  ToolCheck check_tools_;
  mutable AgentCache cache_;
};

}  // namespace agentrt::core
