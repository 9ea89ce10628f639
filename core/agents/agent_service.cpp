#include "core/agents/agent_service.h"

#include "core/domain/errors.h"
#include "core/domain/ids.h"
#include "core/domain/json_fields.h"
#include "core/domain/name_text.h"
#include "core/log/logger.h"
#include "core/memory/memory_service.h"
#include "core/runs/agent_tools.h"
#include "core/runs/tool_request.h"
#include "core/store/paged_query.h"
#include "text/utf8.h"

#include <algorithm>

namespace agentrt::core {
namespace {

constexpr const char* kColumns =
    "seq, cell, id, name, coalesce(model, ''), system_prompt, description, namespace, "
    "memory_layers, created_at, updated_at, tools, max_steps";

Agent read_agent(const Statement& row) {
  Agent a;
  a.cell = row.column_text(1);
  a.id = row.column_text(2);
  a.name = row.column_text(3);
  a.model = row.column_text(4);
  a.system_prompt = row.column_text(5);
  a.description = row.column_text(6);
  a.namespace_ = row.column_text(7);
  a.memory_layers = nlohmann::json::parse(row.column_text(8)).get<std::vector<std::string>>();
  a.created_at = row.column_text(9);
  a.updated_at = row.column_text(10);
  AgentTools tools = read_agent_tools_text(row.column_text(11), "tools");
  a.tools = std::move(tools.client);
  a.tool_refs = std::move(tools.refs);
  if (!row.column_is_null(12)) a.max_steps = row.column_int(12);
  return a;
}

std::vector<std::string> parse_layers(const nlohmann::json& value) {
  if (!value.is_array()) throw invalid("field 'memory_layers' must be an array of layer names");
  std::vector<std::string> layers;
  for (const auto& layer : value) {
    if (!layer.is_string() || !is_memory_layer(layer.get<std::string>()))
      throw invalid("field 'memory_layers' must name only the seven memory layers");
    if (std::find(layers.begin(), layers.end(), layer) != layers.end())
      throw invalid("field 'memory_layers' names '" + layer.get<std::string>() + "' twice");
    layers.push_back(layer.get<std::string>());
  }
  return layers;
}

// Applies the fields of `body` to `agent`; shared by create and update.
// A null `model` removes it (the agent then needs a model in each run's request); the
// other fields have no "none", and null is refused for them.
void apply_fields(Agent& agent, const nlohmann::json& body) {
  reject_null_fields(body, {"name", "system_prompt", "description", "namespace", "memory_layers"});
  if (auto name = optional_string(body, "name")) {
    if (name->empty() || text::utf8_length(*name) > 128)
      throw invalid("field 'name' must be 1 to 128 characters");
    if (name->find_first_not_of(" \t\r\n") == std::string::npos)
      throw invalid("field 'name' must not be blank");
    check_name_text(*name, "name");
    agent.name = *name;
  }
  if (auto model = optional_string(body, "model")) agent.model = *model;
  if (body.contains("model") && body["model"].is_null()) agent.model.clear();
  if (auto prompt = optional_string(body, "system_prompt")) agent.system_prompt = *prompt;
  if (auto description = optional_string(body, "description")) agent.description = *description;
  if (auto ns = optional_string(body, "namespace")) {
    if (ns->empty() || text::utf8_length(*ns) > 128)
      throw invalid("field 'namespace' must be 1 to 128 characters");
    agent.namespace_ = *ns;
  }
  if (body.contains("memory_layers")) agent.memory_layers = parse_layers(body["memory_layers"]);
  if (body.contains("tools")) {
    AgentTools tools = body["tools"].is_null()
                           ? AgentTools{}
                           : read_agent_tools_text(body["tools"].dump(), "tools");
    agent.tools = std::move(tools.client);
    agent.tool_refs = std::move(tools.refs);
  }
  if (body.contains("max_steps")) {
    const std::optional<int64_t> steps = optional_int(body, "max_steps");
    if (steps && (*steps < 1 || *steps > 64))
      throw invalid("field 'max_steps' must be an integer from 1 to 64");
    agent.max_steps = steps;
  }
}

}  // namespace

// The backing array of a namespace-scope list lives as long as the list.
static const std::initializer_list<const char*> kAgentFields = {
    "name",      "model",         "system_prompt", "description",
    "namespace", "memory_layers", "tools",         "max_steps"};

namespace {}  // namespace

const std::vector<std::string>& default_agent_layers() {
  static const std::vector<std::string> layers = {"agent_memory", "about_me", "consensus",
                                                  "session", "environment"};
  return layers;
}

nlohmann::json to_json(const Agent& a) {
  return {{"id", a.id},
          {"name", a.name},
          {"model", a.model.empty() ? nlohmann::json() : nlohmann::json(a.model)},
          {"system_prompt", a.system_prompt},
          {"description", a.description},
          {"namespace", a.namespace_},
          {"memory_layers", a.memory_layers},
          {"tools", nlohmann::json::parse(agent_tools_json(a.tools, a.tool_refs))},
          {"max_steps", a.max_steps ? nlohmann::json(*a.max_steps) : nlohmann::json()},
          {"created_at", a.created_at},
          {"updated_at", a.updated_at}};
}

namespace {

std::optional<Agent> read_row(Connection& db, const std::string& cell, const std::string& id) {
  auto row =
      db.prepare(std::string("SELECT ") + kColumns + " FROM agents WHERE cell = ? AND id = ?");
  if (!row.bind(1, cell).bind(2, id).step()) return std::nullopt;
  return read_agent(row);
}

void write_row(Connection& db, const Agent& a, bool insert) {
  auto clash = db.prepare("SELECT id FROM agents WHERE cell = ? AND name = ? AND id != ?");
  if (clash.bind(1, a.cell).bind(2, a.name).bind(3, a.id).step())
    throw conflict("an agent named '" + a.name + "' exists in this cell");
  auto statement = db.prepare(
      insert ? "INSERT INTO agents(model, system_prompt, description, namespace, memory_layers, "
               "updated_at, name, created_at, cell, id, tools, max_steps) VALUES (?, ?, ?, ?, ?, "
               "?, ?, ?, ?, ?, ?, ?)"
             : "UPDATE agents SET model = ?, system_prompt = ?, description = ?, namespace = ?, "
               "memory_layers = ?, updated_at = ?, name = ?, created_at = ?, tools = ?11, "
               "max_steps = ?12 WHERE cell = ?9 AND id = ?10");
  if (a.model.empty())
    statement.bind_null(1);
  else
    statement.bind(1, a.model);
  statement.bind(2, a.system_prompt).bind(3, a.description).bind(4, a.namespace_);
  statement.bind(5, nlohmann::json(a.memory_layers).dump()).bind(6, a.updated_at);
  statement.bind(7, a.name).bind(8, a.created_at).bind(9, a.cell).bind(10, a.id);
  statement.bind(11, agent_tools_json(a.tools, a.tool_refs));
  if (a.max_steps)
    statement.bind(12, *a.max_steps);
  else
    statement.bind_null(12);
  statement.run();
}

bool namespace_in_use(Connection& db, const std::string& cell, const std::string& namespace_) {
  return db.prepare("SELECT 1 FROM agents WHERE cell = ? AND namespace = ? LIMIT 1")
      .bind(1, cell)
      .bind(2, namespace_)
      .step();
}

}  // namespace

void AgentService::check_tools(const nlohmann::json& body) const {
  if (!check_tools_ || !body.contains("tools") || body["tools"].is_null()) return;
  check_tools_(read_agent_tools_text(body["tools"].dump(), "tools"));
}

std::optional<std::string> AgentService::model_problem(const nlohmann::json& body) const {
  auto model = optional_string(body, "model");
  if (!model) return std::nullopt;
  if (model->empty()) throw invalid("field 'model' must name a model; null removes it");
  if (known_model_ && !known_model_(*model))
    return "field 'model': no provider offers model '" + *model + "'";
  return std::nullopt;
}

Agent AgentService::create(const std::string& cell, const nlohmann::json& body,
                           std::optional<int64_t> cell_seq) {
  require_object(body);
  reject_unknown_fields(body, kAgentFields);
  required_string(body, "name");
  if (auto problem = model_problem(body)) throw invalid(*problem);
  check_tools(body);
  Agent agent;
  agent.cell = cell;
  agent.id = new_id("agt");
  agent.memory_layers = default_agent_layers();
  apply_fields(agent, body);
  if (agent.namespace_.empty()) agent.namespace_ = agent.id;
  agent.created_at = agent.updated_at = utc_timestamp_now();
  // Nothing to forget: the cache keeps only agents a lookup found. The cell is looked
  // for in the write, as the request's check may have come before its deletion, and
  // the cell found then may since have been made again under its id.
  store_.write([&](Connection& db) {
    auto found = db.prepare("SELECT seq FROM cells WHERE id = ?");
    if (!found.bind(1, cell).step() || (cell_seq && found.column_int(0) != *cell_seq))
      throw not_found("cell '" + cell + "' not found");
    write_row(db, agent, true);
  });
  log_info("agent created", {{"cell", cell}, {"agent", agent.id}});
  return agent;
}

std::shared_ptr<const Agent> AgentService::find(const std::string& cell,
                                                const std::string& id) const {
  if (auto kept = cache_.find(cell, id)) return kept;
  const uint64_t changes_before = cache_.changes();
  std::optional<Agent> read;
  store_.read_short([&](Connection& db) { read = read_row(db, cell, id); });
  if (!read) return nullptr;
  auto found = std::make_shared<const Agent>(std::move(*read));
  cache_.remember(found, changes_before);
  return found;
}

nlohmann::json AgentService::list(const std::string& cell, const PageRequest& page) const {
  nlohmann::json body;
  store_.read([&](Connection& db) {
    auto rows = db.prepare(std::string("SELECT ") + kColumns +
                           " FROM agents WHERE cell = ? AND seq < ? ORDER BY seq DESC LIMIT ?");
    rows.bind(1, cell).bind(2, page.after.value_or(INT64_MAX)).bind(3, int64_t{page.limit} + 1);
    body =
        read_page(rows, page.limit, [](const Statement& row) { return to_json(read_agent(row)); });
  });
  return body;
}

Agent AgentService::update(const std::string& cell, const std::string& id,
                           const nlohmann::json& body) {
  require_object(body);
  if (body.contains("id")) throw invalid("field 'id' cannot be changed");
  reject_unknown_fields(body, kAgentFields);
  // Asked before the transaction (the registry is not to be locked inside the store's),
  // and held against the PATCH only if it changes the model: an agent read and written
  // back as it is must not fail because its provider has since been withdrawn.
  const std::optional<std::string> unoffered = model_problem(body);
  check_tools(body);
  // Read, changed and written in one transaction: two updates at once each keep the
  // other's fields.
  Agent agent;
  store_.write([&](Connection& db) {
    auto found = read_row(db, cell, id);
    if (!found) throw not_found("agent '" + id + "' not found");
    agent = std::move(*found);
    const nlohmann::json before = to_json(agent);
    const std::string model_before = agent.model;
    apply_fields(agent, body);
    if (unoffered && agent.model != model_before) throw invalid(*unoffered);
    // A PATCH that changes nothing leaves the agent, updated_at too, as it was.
    if (to_json(agent) == before) return;
    agent.updated_at = utc_timestamp_now();
    write_row(db, agent, false);
  });
  cache_.forget(cell, id);
  return agent;
}

void AgentService::remove(const std::string& cell, const std::string& id) {
  // Its namespace's memory goes with the last agent of the cell that uses it: agents
  // may share a namespace, and the others still read it.
  // The memory goes inside the transaction, before its commit: should clearing it fail,
  // the agent stays and the DELETE can be sent again; should the commit fail after it,
  // the agent stays without that memory, and a DELETE sent again finishes. After the
  // commit, a failure would leave the memory for good and a retry would be 404.
  store_.write([&](Connection& db) {
    auto found = read_row(db, cell, id);
    if (!found) throw not_found("agent '" + id + "' not found");
    db.prepare("DELETE FROM agents WHERE cell = ? AND id = ?").bind(1, cell).bind(2, id).run();
    if (!namespace_in_use(db, cell, found->namespace_) && cleanup_)
      cleanup_(cell, found->namespace_);
  });
  cache_.forget(cell, id);
  log_info("agent deleted", {{"cell", cell}, {"agent", id}});
}

void AgentService::remove_cell(Connection& db, const std::string& cell) {
  db.prepare("DELETE FROM agents WHERE cell = ?").bind(1, cell).run();
}

}  // namespace agentrt::core
