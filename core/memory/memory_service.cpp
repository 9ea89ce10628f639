#include "core/memory/memory_service.h"

#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/domain/paging.h"
#include "core/domain/plugin_call.h"
#include "text/utf8.h"

#include <algorithm>

namespace agentrt::core {
namespace {

nlohmann::json optional_value(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

std::string checked_layer(const std::optional<std::string>& layer) {
  if (!layer) throw invalid("query parameter 'layer' is required");
  if (!is_memory_layer(*layer))
    throw invalid(
        "query parameter 'layer' must be one of environment, consensus, about_me, "
        "agent_memory, session, working, unknown");
  return *layer;
}

}  // namespace

const std::vector<std::string>& memory_layers() {
  static const std::vector<std::string> layers = {
      "environment", "consensus", "about_me", "agent_memory", "session", "working", "unknown"};
  return layers;
}

bool is_memory_layer(const std::string& name) {
  const auto& layers = memory_layers();
  return std::find(layers.begin(), layers.end(), name) != layers.end();
}

MemoryService::MemoryService(std::shared_ptr<PluginInstance> backend, SessionCheck session_owned,
                             CellHold hold_cell)
    : backend_(std::move(backend)),
      session_owned_(std::move(session_owned)),
      hold_cell_(std::move(hold_cell)) {}

CellFence::Hold MemoryService::held_cell(const std::string& cell, const Principal& who) const {
  std::optional<CellFence::Hold> held = hold_cell_(cell, who.cell_seq);
  if (!held) throw not_found("cell '" + cell + "' not found");
  return std::move(*held);
}

nlohmann::json MemoryService::call(agentrt_json_call_fn fn, const nlohmann::json& request) const {
  return call_plugin_json(*backend_, fn, request);
}

// Cached totals of the cell go whether the write worked or not: a failure can come
// after the backend changed something.
nlohmann::json MemoryService::write(const std::string& cell, agentrt_json_call_fn fn,
                                    const nlohmann::json& request) {
  try {
    nlohmann::json answer = call(fn, request);
    totals_.forget_cell(cell);
    return answer;
  } catch (...) {
    totals_.forget_cell(cell);
    throw;
  }
}

// The one place that decides whose entries a read sees (the actor rule).
nlohmann::json MemoryService::filter(const std::string& cell, const Principal& who,
                                     const MemoryQuery& query) const {
  return {{"cell", cell},
          {"actor", optional_value(reading_actor(who, query.actor))},
          {"namespace", optional_value(query.namespace_)},
          {"session_id", optional_value(query.session_id)}};
}

nlohmann::json MemoryService::save(const std::string& cell, const Principal& who,
                                   const nlohmann::json& body) {
  require_object(body);
  reject_unknown_fields(body, {"layer", "content", "namespace", "actor", "session_id", "metadata"});
  std::string layer = required_string(body, "layer");
  // An unknown layer's name is kept (requested_layer): bounded like any name.
  if (layer.empty() || text::utf8_length(layer) > 64)
    throw invalid("field 'layer' must be 1 to 64 characters");
  std::string content = required_string(body, "content");
  if (content.empty()) throw invalid("field 'content' must be a non-empty string");
  auto namespace_ = optional_string(body, "namespace");
  // As an agent's namespace, so that every entry's can be an agent's and be filtered by.
  if (namespace_ && (namespace_->empty() || text::utf8_length(*namespace_) > 128))
    throw invalid("field 'namespace' must be 1 to 128 characters");
  auto session_id = optional_string(body, "session_id");
  nlohmann::json metadata = body.value("metadata", nlohmann::json::object());
  if (metadata.is_null()) metadata = nlohmann::json::object();
  if (!metadata.is_object()) throw invalid("field 'metadata' must be an object");
  const std::string actor = acting_actor(who, optional_string(body, "actor"));
  nlohmann::json request = {{"cell", cell},
                            {"content", content},
                            {"namespace", optional_value(namespace_)},
                            {"actor", actor},
                            {"session_id", optional_value(session_id)},
                            {"metadata", metadata}};
  // "unknown" is not one of the six named layers either, so it is said as any other: the
  // entry says `requested_layer` (docs/openapi.yaml, saveMemory).
  if (!is_memory_layer(layer) || layer == "unknown") {
    request["requested_layer"] = layer;
    layer = "unknown";
  }
  request["layer"] = layer;
  if (layer == "agent_memory" && !namespace_)
    throw invalid("field 'namespace' is required for the agent_memory layer");
  if (layer == "session" && !session_id)
    throw invalid("field 'session_id' is required for the session layer");
  // On any layer: an entry of another layer names the session it was learnt in, and a
  // name that is no session of the acting actor's would be a tag nobody can trust. Held
  // to the write's end, so that a deletion of the session waits for it and deletes the
  // entry too.
  std::optional<StripedFence::Hold> session_held;
  if (session_id && !(session_held = session_owned_(cell, actor, *session_id)))
    throw invalid("field 'session_id' names no session of actor '" + actor + "'");
  CellFence::Hold held = held_cell(cell, who);
  return write(cell, table().save, request);
}

nlohmann::json MemoryService::list(const std::string& cell, const Principal& who,
                                   const MemoryQuery& query) {
  nlohmann::json request = filter(cell, who, query);
  request["layer"] = checked_layer(query.layer);
  request["limit"] = parse_page_request(query.limit, std::nullopt).limit;
  request["cursor"] = optional_value(query.cursor);
  return call(table().list, request);
}

nlohmann::json MemoryService::get(const std::string& cell, const Principal& who,
                                  const std::string& id, const MemoryQuery& query) {
  nlohmann::json request = filter(cell, who, query);
  request["id"] = id;
  return call(table().get, request);
}

void MemoryService::remove(const std::string& cell, const Principal& who, const std::string& id,
                           const MemoryQuery& query) {
  nlohmann::json request = filter(cell, who, query);
  request["id"] = id;
  // Every actor reads the shared layers whole, but deletes there only what it wrote:
  // another's entry, or a sensor's, is the cell's knowledge.
  if (!who.admin) {
    const nlohmann::json entry = call(table().get, request);  // 404 when not visible
    if (entry.value("actor", "") != who.actor)
      throw DomainError(ErrorKind::forbidden, "memory entry '" + id +
                                                  "' is shared and was written by another "
                                                  "actor; only an admin token deletes it");
  }
  CellFence::Hold held = held_cell(cell, who);
  write(cell, table().remove, request);
}

nlohmann::json MemoryService::clear_layer(const std::string& cell, const Principal& who,
                                          const MemoryQuery& query) {
  nlohmann::json request = filter(cell, who, query);
  request["layer"] = checked_layer(query.layer);
  if (!who.admin) request["owner"] = who.actor;  // as remove: a shared layer keeps the others'
  CellFence::Hold held = held_cell(cell, who);
  return write(cell, table().clear_layer, request);
}

nlohmann::json MemoryService::search(const std::string& cell, const Principal& who,
                                     const nlohmann::json& body) {
  require_object(body);
  reject_unknown_fields(body, {"query", "layers", "namespace", "limit", "actor", "session_id"});
  std::string query = required_string(body, "query");
  if (query.empty()) throw invalid("field 'query' must not be empty");
  MemoryQuery scope;
  scope.actor = optional_string(body, "actor");
  scope.namespace_ = optional_string(body, "namespace");
  scope.session_id = optional_string(body, "session_id");
  nlohmann::json request = filter(cell, who, scope);
  request["query"] = query;
  request["layers"] = nullptr;
  if (body.contains("layers") && !body["layers"].is_null()) {
    if (!body["layers"].is_array()) throw invalid("field 'layers' must be an array of layer names");
    for (const auto& layer : body["layers"])
      if (!layer.is_string() || !is_memory_layer(layer.get<std::string>()))
        throw invalid("field 'layers' must name only the seven memory layers");
    request["layers"] = body["layers"];
  }
  int64_t limit = optional_int(body, "limit").value_or(10);
  if (limit < 1 || limit > 100) throw invalid("field 'limit' must be from 1 to 100");
  request["limit"] = limit;
  return call(table().search, request);
}

nlohmann::json MemoryService::counts(const std::string& cell, const Principal& who,
                                     const MemoryQuery& query) {
  nlohmann::json answer = call(table().count, filter(cell, who, query));
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& layer : memory_layers()) {
    // Rule 1: every key, zeros included, even if a backend left one out.
    counts[layer] = answer.value(layer, int64_t{0});
  }
  return counts;
}

std::vector<nlohmann::json> MemoryService::recent(const std::string& cell, const std::string& layer,
                                                  const std::string& actor,
                                                  const std::optional<std::string>& namespace_,
                                                  const std::optional<std::string>& session_id,
                                                  int limit, int64_t max_tokens) {
  nlohmann::json request = {{"cell", cell},
                            {"layer", layer},
                            {"actor", actor},
                            {"namespace", optional_value(namespace_)},
                            {"session_id", optional_value(session_id)},
                            {"limit", limit},
                            {"cursor", nullptr}};
  if (max_tokens > 0 && backend_->plugin().abi_minor() >= 5) request["max_tokens"] = max_tokens;
  nlohmann::json answer = call(table().list, request);
  return answer.value("data", nlohmann::json::array()).get<std::vector<nlohmann::json>>();
}

MemoryTotalsCache::Totals MemoryService::visible_totals(const std::string& cell,
                                                        const std::string& actor) {
  if (auto cached = totals_.find(cell, actor)) return cached;
  const uint64_t generation = totals_.generation();
  nlohmann::json answer =
      call(table().count,
           {{"cell", cell}, {"actor", actor}, {"namespace", nullptr}, {"session_id", nullptr}});
  const std::chrono::seconds reuse = allowed_reuse(answer);
  auto totals = std::make_shared<const nlohmann::json>(std::move(answer));
  totals_.remember(cell, actor, totals, reuse, generation);
  return totals;
}

int64_t MemoryService::delete_session(const std::string& cell, const std::string& session_id) {
  return write(cell, table().delete_by_session, {{"cell", cell}, {"session_id", session_id}})
      .value("deleted", int64_t{0});
}

int64_t MemoryService::clear_namespace(const std::string& cell, const std::string& namespace_) {
  return write(cell, table().clear_layer,
               {{"cell", cell},
                {"layer", "agent_memory"},
                {"actor", nullptr},
                {"namespace", namespace_},
                {"session_id", nullptr}})
      .value("deleted", int64_t{0});
}

int64_t MemoryService::clear_cell(const std::string& cell) {
  int64_t deleted = 0;
  for (const auto& layer : memory_layers())
    deleted += write(cell, table().clear_layer,
                     {{"cell", cell},
                      {"layer", layer},
                      {"actor", nullptr},
                      {"namespace", nullptr},
                      {"session_id", nullptr}})
                   .value("deleted", int64_t{0});
  return deleted;
}

}  // namespace agentrt::core
