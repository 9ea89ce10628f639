// Memory backends and auth modules: the round trips agentd relies on, against a
// temporary data dir (docs/plugin-author-guide.md has the shapes).
#include "tools/plugin-check/checks.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

namespace agentrt::plugin_check {
namespace {

using core::PluginInstance;
using nlohmann::json;

json call(const PluginInstance& instance, agentrt_json_call_fn fn, const json& request,
          const char* what) {
  std::string answer;
  try {
    answer = instance.call_json(fn, request.dump());
  } catch (const core::PluginError& e) {
    throw Failure(std::string(what) + " " + request.dump() + ": " + describe(e));
  }
  json parsed = json::parse(answer, nullptr, false);
  if (!parsed.is_object()) throw Failure(std::string(what) + " answered no JSON object: " + answer);
  return parsed;
}

// The code a call that must fail fails with, or AGENTRT_OK when it succeeded.
int32_t failure_code(const PluginInstance& instance, agentrt_json_call_fn fn, const json& request) {
  try {
    instance.call_json(fn, request.dump());
  } catch (const core::PluginError& e) {
    return e.code;
  }
  return AGENTRT_OK;
}

bool lists_id(const json& answer, const std::string& id) {
  if (!answer.contains("data") || !answer["data"].is_array()) return false;
  for (const json& item : answer["data"])
    if (item.is_object() && item.value("id", "") == id) return true;
  return false;
}

json memory_filter() {
  return {{"cell", "plugin-check-" + std::to_string(getpid())}, {"actor", "plugin-check"}};
}

Outcome memory_rules(const Context& context) {
  auto instance = make_instance<PluginInstance>(context);
  const agentrt_memory_vtable_t& table = context.plugin->memory_table();
  const json filter = memory_filter();
  json entry = filter;
  entry.update({{"layer", "agent_memory"}, {"content", "plugin-check entry"}});
  const json saved = call(*instance, table.save, entry, "save");
  if (!saved.contains("id") || !saved["id"].is_string())
    throw Failure("save answered no string id: " + saved.dump());
  const std::string id = saved["id"].get<std::string>();
  json by_id = filter;
  by_id["id"] = id;
  const json got = call(*instance, table.get, by_id, "get");
  if (got.value("id", "") != id || got.value("content", "") != "plugin-check entry")
    throw Failure("get answered another entry: " + got.dump());
  json list = filter;
  list.update({{"layer", "agent_memory"}, {"limit", 10}});
  if (!lists_id(call(*instance, table.list, list, "list"), id))
    throw Failure("list of layer agent_memory does not contain the saved entry");
  const json counts = call(*instance, table.count, filter, "count");
  if (counts.value("agent_memory", 0) != 1)
    throw Failure("count answered " + counts.dump() + " for one saved agent_memory entry");
  const json removed = call(*instance, table.remove, by_id, "remove");
  if (removed.value("deleted", 0) != 1) throw Failure("remove answered " + removed.dump());
  const int32_t code = failure_code(*instance, table.get, by_id);
  if (code != AGENTRT_ERR_NOT_FOUND)
    throw Failure("get after remove returned code " + std::to_string(code) + ", not NOT_FOUND");
  return {Result::pass, "save, get, list, count, remove, then get NOT_FOUND"};
}

CheapCall prepare_count(const Context& context) {
  std::shared_ptr<PluginInstance> instance = make_instance<PluginInstance>(context);
  const agentrt_json_call_fn count = context.plugin->memory_table().count;
  return [instance, count] { (void)instance->call_json(count, memory_filter().dump()); };
}

// Issues a token; answers its record (with the secret "token" and its "id").
json issue(const PluginInstance& instance, const agentrt_auth_vtable_t& table) {
  const json request = {
      {"ttl_s", 3600}, {"actor", "plugin-check"}, {"cell", "plugin-check"}, {"admin", false}};
  json record = call(instance, table.issue, request, "issue");
  if (!record.contains("token") || !record["token"].is_string() || !record.contains("id") ||
      !record["id"].is_string())
    throw Failure("issue answered no string token and id");
  return record;
}

Outcome auth_rules(const Context& context) {
  auto instance = make_instance<PluginInstance>(context);
  const agentrt_auth_vtable_t& table = context.plugin->auth_table();
  const json record = issue(*instance, table);
  const std::string id = record["id"].get<std::string>();
  const json token = {{"token", record["token"]}};
  const json claims = call(*instance, table.verify, token, "verify");
  if (claims.value("token_id", "") != id || claims.value("actor", "") != "plugin-check" ||
      !claims.contains("admin") || !claims.contains("expires_at"))
    throw Failure("verify answered claims of another shape: " + claims.dump());
  const json list = call(*instance, table.list, json::object(), "list");
  if (!lists_id(list, id)) throw Failure("list does not contain the issued token");
  for (const json& item : list["data"])
    if (item.is_object() && item.contains("token")) throw Failure("list shows a token's secret");
  const json revoked = call(*instance, table.revoke, {{"id", id}}, "revoke");
  if (revoked.value("revoked", false) != true) throw Failure("revoke answered " + revoked.dump());
  const int32_t code = failure_code(*instance, table.verify, token);
  if (code != AGENTRT_ERR_UNAUTHENTICATED)
    throw Failure("verify after revoke returned code " + std::to_string(code) +
                  ", not UNAUTHENTICATED");
  return {Result::pass, "issue, verify, list without secrets, revoke, then UNAUTHENTICATED"};
}

CheapCall prepare_verify(const Context& context) {
  std::shared_ptr<PluginInstance> instance = make_instance<PluginInstance>(context);
  const agentrt_auth_vtable_t& table = context.plugin->auth_table();
  const std::string token = json{{"token", issue(*instance, table)["token"]}}.dump();
  const agentrt_json_call_fn verify = table.verify;
  return [instance, verify, token] { (void)instance->call_json(verify, token); };
}

}  // namespace

std::vector<Check> memory_checks() {
  return {{"memory_rules", memory_rules}, thread_safety_check(prepare_count)};
}

std::vector<Check> auth_checks() {
  return {{"auth_rules", auth_rules}, thread_safety_check(prepare_verify)};
}

}  // namespace agentrt::plugin_check
