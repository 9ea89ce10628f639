#include "core/tools/memory_tools.h"

#include "core/domain/errors.h"
#include "core/log/logger.h"
#include "core/runs/agent_tools.h"

#include <algorithm>
#include <chrono>

namespace agentrt::core {
namespace {

using nlohmann::json;

// A refusal the model reads as the tool's error result.
struct ToolRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string listed(const std::vector<std::string>& layers) {
  std::string out;
  for (const std::string& layer : layers) out += (out.empty() ? "" : ", ") + layer;
  return out.empty() ? "none" : out;
}

json arguments_of(const ToolCall& call, std::initializer_list<const char*> known) {
  json arguments = json::parse(call.arguments, nullptr, false);
  if (!arguments.is_object()) throw ToolRefusal("the arguments must be a JSON object");
  for (const auto& [key, value] : arguments.items())
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
      throw ToolRefusal("unknown argument '" + key + "'");
  return arguments;
}

void check_layer(const MemoryToolScope& scope, const std::string& layer) {
  if (!contains(scope.layers, layer))
    throw ToolRefusal("layer '" + layer + "' is not one this conversation may use (it may use: " +
                      listed(scope.layers) + ")");
}

// The layers asked, each one the run sees; all of those when none are asked.
std::vector<std::string> layers_asked(const json& arguments, const MemoryToolScope& scope) {
  if (!arguments.contains("layers") || arguments["layers"].is_null()) return scope.layers;
  if (!arguments["layers"].is_array())
    throw ToolRefusal("'layers' must be an array of layer names");
  std::vector<std::string> layers;
  for (const json& layer : arguments["layers"]) {
    if (!layer.is_string()) throw ToolRefusal("'layers' must be an array of layer names");
    check_layer(scope, layer.get<std::string>());
    if (!contains(layers, layer.get<std::string>())) layers.push_back(layer.get<std::string>());
  }
  return layers;
}

// One search over `layers`, narrowed to a namespace or session when `key` names one.
void search_into(json& hits, MemoryService& memory, const MemoryToolScope& scope, json body,
                 std::vector<std::string> layers) {
  if (layers.empty()) return;
  body["layers"] = std::move(layers);
  const Principal who{"", scope.actor, scope.cell, false, std::nullopt};
  for (json& hit : memory.search(scope.cell, who, body).value("data", json::array())) {
    const json& entry = hit["entry"];
    json shown = {{"id", entry.value("id", "")},
                  {"layer", entry.value("layer", "")},
                  {"content", entry.value("content", "")},
                  {"score", hit.value("score", 0.0)}};
    if (entry.contains("metadata") && !entry["metadata"].empty())
      shown["metadata"] = entry["metadata"];
    hits.push_back(std::move(shown));
  }
}

std::string memory_search(MemoryService& memory, const ToolCall& call,
                          const MemoryToolScope& scope) {
  const json arguments = arguments_of(call, {"query", "layers", "limit"});
  if (!arguments.contains("query") || !arguments["query"].is_string())
    throw ToolRefusal("'query' must be a string");
  const int64_t limit = arguments.contains("limit") && arguments["limit"].is_number_integer()
                            ? arguments["limit"].get<int64_t>()
                            : 10;
  if (limit < 1 || limit > 100) throw ToolRefusal("'limit' must be from 1 to 100");
  std::vector<std::string> plain, layers = layers_asked(arguments, scope);
  for (const std::string& layer : layers)
    if (layer != "agent_memory" && layer != "session") plain.push_back(layer);
  const json body = {{"query", arguments["query"]}, {"limit", limit}};
  json hits = json::array();
  search_into(hits, memory, scope, body, plain);
  if (contains(layers, "agent_memory")) {
    json own = body;
    own["namespace"] = scope.agent_namespace;
    search_into(hits, memory, scope, own, {"agent_memory"});
  }
  if (contains(layers, "session")) {
    json own = body;
    own["session_id"] = scope.session_id;
    search_into(hits, memory, scope, own, {"session"});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const json& a, const json& b) {
    return a.value("score", 0.0) > b.value("score", 0.0);
  });
  if (hits.size() > static_cast<size_t>(limit)) hits.erase(hits.begin() + limit, hits.end());
  return json{{"results", std::move(hits)}}.dump();
}

std::string memory_save(MemoryService& memory, const ToolCall& call, const MemoryToolScope& scope) {
  const json arguments = arguments_of(call, {"layer", "content", "metadata"});
  if (!arguments.contains("layer") || !arguments["layer"].is_string())
    throw ToolRefusal("'layer' must be a layer name");
  const std::string layer = arguments["layer"].get<std::string>();
  check_layer(scope, layer);
  json body = {{"layer", layer}, {"content", arguments.value("content", json())}};
  if (arguments.contains("metadata")) body["metadata"] = arguments["metadata"];
  if (layer == "agent_memory") body["namespace"] = scope.agent_namespace;
  if (layer == "session") body["session_id"] = scope.session_id;
  const Principal who{"", scope.actor, scope.cell, false, std::nullopt};
  const json saved = memory.save(scope.cell, who, body);
  return json{{"saved", {{"id", saved.value("id", "")}, {"layer", layer}}}}.dump();
}

}  // namespace

ToolResult run_memory_tool(MemoryService& memory, const ToolCall& call,
                           const MemoryToolScope& scope) {
  const auto began = std::chrono::steady_clock::now();
  ToolResult result{call.id, call.name, "", false, false, 0};
  try {
    result.output = call.name == kMemorySearch ? memory_search(memory, call, scope)
                                               : memory_save(memory, call, scope);
  } catch (const ToolRefusal& e) {
    result = {call.id, call.name, call.name + ": " + e.what(), true, false, 0};
  } catch (const DomainError& e) {
    result = {call.id, call.name, call.name + ": " + e.what(), true, false, 0};
  } catch (const std::exception& e) {
    log_warn("built-in tool failed", {{"tool", call.name}, {"reason", e.what()}});
    result = {call.id, call.name, call.name + ": the memory could not be used", true, false, 0};
  }
  result.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - began)
                           .count();
  return result;
}

}  // namespace agentrt::core
