#include "server/api/audited_route.h"

#include "server/http/audit_context.h"
#include "server/http/response.h"

namespace agentrt::server::api {

std::optional<std::string> names_in(const nlohmann::json& body, const char* list) {
  if (!body.is_object() || !body.contains(list) || !body[list].is_array()) return std::nullopt;
  std::string names;
  for (const nlohmann::json& item : body[list]) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) continue;
    names += (names.empty() ? "" : ",") + item["name"].get<std::string>();
  }
  return audit_text(names);
}

Handler audited(core::Engine& engine, std::string name, int ok_status, AuditedAction action) {
  return [&engine, name = std::move(name), ok_status, action = std::move(action)](
             RequestContext& ctx, Response& response) {
    core::AuditEntry entry = audit_entry_for(ctx, name);
    entry.status = ok_status;
    core::AuditLog& audit = engine.audit();
    // Read when the action's write runs, after the action has set its target. Gone
    // before the entry is recorded on its own, or that write would take it too.
    std::optional<core::StateStore::Companion> with_write;
    with_write.emplace([&audit, &entry](core::Connection& db) { audit.append(db, entry); });
    std::optional<nlohmann::json> body;
    try {
      body = action(ctx, entry);
    } catch (...) {
      // A failure after the write committed (none of the routes has one) leaves the
      // entry that write made: the change it records happened.
      const bool committed = with_write->committed();
      with_write.reset();
      if (!committed) {
        set_audit_failure(entry, std::current_exception());
        audit.record(entry);
      }
      throw;
    }
    const bool committed = with_write->committed();
    with_write.reset();
    if (!committed) audit.record(entry);
    if (body)
      response.send_json(ok_status, *body);
    else
      response.send_no_content();
  };
}

}  // namespace agentrt::server::api
