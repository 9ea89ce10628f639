#include "core/auth/auth_service.h"

#include "core/domain/duration.h"
#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/domain/plugin_call.h"
#include "text/utf8.h"

#include <strings.h>

namespace agentrt::core {
AuthService::AuthService(std::shared_ptr<PluginInstance> plugin, CellHold hold_cell)
    : plugin_(std::move(plugin)), hold_cell_(std::move(hold_cell)) {}

nlohmann::json AuthService::call(agentrt_json_call_fn fn, const nlohmann::json& request) const {
  return call_plugin_json(*plugin_, fn, request);
}

Principal AuthService::verify(const std::string& token) const {
  if (token.empty()) throw DomainError(ErrorKind::unauthorized, "missing bearer token");
  if (auto known = verified_.find(token)) return *known;
  const uint64_t epoch = verified_.epoch();
  nlohmann::json claims;
  try {
    claims = call(plugin_->plugin().auth_table().verify, {{"token", token}});
  } catch (const DomainError& e) {
    // Whatever the plugin said, a token that does not verify is a 401.
    if (e.kind() == ErrorKind::invalid)
      throw DomainError(ErrorKind::unauthorized, "malformed token");
    throw;
  }
  Principal who;
  who.token_id = claims.value("token_id", "");
  who.actor = claims.value("actor", "");
  if (claims.contains("cell") && claims["cell"].is_string())
    who.cell = claims["cell"].get<std::string>();
  who.admin = claims.value("admin", false);
  verified_.remember(token, who, allowed_reuse(claims), epoch);
  return who;
}

nlohmann::json AuthService::issue(const nlohmann::json& body) const {
  require_object(body);
  reject_unknown_fields(body, {"ttl", "actor", "cell", "admin"});
  reject_null_fields(body, {"admin"});  // `cell` is the one that may be null
  std::string ttl_text = required_string(body, "ttl");
  std::string error;
  auto ttl = parse_duration(ttl_text, error);
  if (!ttl) throw invalid("field 'ttl' " + error);
  std::string actor = required_string(body, "actor");
  if (actor.empty() || text::utf8_length(actor) > kActorMaxCharacters)
    throw invalid("field 'actor' must be 1 to 256 characters");
  check_actor_name(actor);
  auto cell = optional_string(body, "cell");
  // Held until the token is stored, so that the cell's deletion, which revokes its
  // tokens, comes after and revokes this one too.
  std::optional<CellFence::Hold> held;
  if (cell && !(held = hold_cell_(*cell, std::nullopt)))
    throw invalid("field 'cell' names no existing cell");
  bool admin = optional_bool(body, "admin").value_or(false);
  // An admin token naming no actor writes as this one: a plain token of that name would
  // read what every such admin wrote.
  // In any case ("Admin" reads as the same name).
  if (!admin && strcasecmp(actor.c_str(), kAdminActor) == 0)
    throw invalid("field 'actor': '" + actor + "' is kept for admin tokens");
  return call(plugin_->plugin().auth_table().issue,
              {{"ttl_s", *ttl},
               {"actor", actor},
               {"cell", cell ? nlohmann::json(*cell) : nlohmann::json()},
               {"admin", admin}});
}

nlohmann::json AuthService::list(const std::optional<std::string>& limit,
                                 const std::optional<std::string>& cursor) const {
  PageRequest page = parse_page_request(limit, std::nullopt);  // the plugin owns its cursor
  return call(
      plugin_->plugin().auth_table().list,
      {{"limit", page.limit}, {"cursor", cursor ? nlohmann::json(*cursor) : nlohmann::json()}});
}

void AuthService::revoke(const std::string& id) const {
  try {
    call(plugin_->plugin().auth_table().revoke, {{"id", id}});
  } catch (...) {
    verified_.forget_token_id(id);  // whatever the module says, stop vouching for it here
    throw;
  }
  verified_.forget_token_id(id);
  leases_.revoke(id);
}

size_t AuthService::revoke_cell(const std::string& cell) const {
  // The auth ABI lists without filters, so the cell's tokens are found page by page
  // (an admin operation, rare), all before any is revoked.
  std::vector<std::string> ids;
  nlohmann::json cursor = nullptr;
  do {
    nlohmann::json page =
        call(plugin_->plugin().auth_table().list, {{"limit", kMaxPageLimit}, {"cursor", cursor}});
    for (const nlohmann::json& record : page.value("data", nlohmann::json::array()))
      if (record.value("cell", nlohmann::json()) == cell) ids.push_back(record.value("id", ""));
    cursor = page.value("next_cursor", nlohmann::json());
  } while (cursor.is_string());
  for (const std::string& id : ids) {
    try {
      revoke(id);
    } catch (const DomainError& e) {
      if (e.kind() != ErrorKind::not_found) throw;  // revoked meanwhile: as good
    }
  }
  verified_.forget_cell(cell);
  return ids.size();
}

std::string AuthService::mint_admin() const {
  auto record =
      call(plugin_->plugin().auth_table().issue,
           {{"ttl_s", nullptr}, {"actor", kAdminActor}, {"cell", nullptr}, {"admin", true}});
  return record.value("token", "");
}

}  // namespace agentrt::core
