// Tokens, through whichever auth plugin the config names: verification of bearer
// tokens, and the admin operations on them. The plugin owns the credentials; this
// service validates requests, maps the plugin's codes to domain errors, and
// bootstraps the first admin token.
#pragma once

#include "core/auth/principal.h"
#include "core/auth/token_leases.h"
#include "core/auth/verified_tokens.h"
#include "core/cells/cell_fence.h"
#include "core/domain/paging.h"
#include "core/plugin_host/loaded_plugin.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace agentrt::core {

class AuthService {
 public:
  // `hold_cell` checks a token's cell scope at issue time, and holds the cell's fence
  // (core/cells/cell_fence.h) until the token is stored.
  AuthService(std::shared_ptr<PluginInstance> plugin, CellHold hold_cell);

  // The bearer token's principal; unauthorized for a missing, malformed, unknown,
  // expired or revoked token (the message says which, never the token). Claims the
  // module marks reusable are served from memory until they lapse or this service
  // revokes the token (verified_tokens.h).
  Principal verify(const std::string& token) const;
  // For GET /health: the module's store takes writes (PluginInstance::usable).
  bool usable() const { return plugin_->usable(); }

  // POST /admin/tokens: {"ttl","actor","cell"?,"admin"?} -> record with the token.
  nlohmann::json issue(const nlohmann::json& body) const;
  nlohmann::json list(const std::optional<std::string>& limit,
                      const std::optional<std::string>& cursor) const;
  // Revokes at once: later requests get 401, and the streams open on the token end
  // (hold()).
  void revoke(const std::string& id) const;
  // Revokes every live token scoped to `cell`, for DELETE /admin/cells: a deleted cell
  // takes its tokens with it, or a cell created again under the same id would let
  // them back in. Returns how many.
  size_t revoke_cell(const std::string& cell) const;

  // A stream's lease on the token it was opened with, revoked with the token
  // (token_leases.h); `on_revoke` runs then.
  TokenLeases::Lease hold(const Principal& who, std::function<void()> on_revoke = {}) const {
    return leases_.hold(who.token_id, std::move(on_revoke));
  }

  // Issues an admin token that never expires: the first one at the first start, or a
  // fresh one for an operator who lost theirs.
  std::string mint_admin() const;

 private:
  nlohmann::json call(agentrt_json_call_fn fn, const nlohmann::json& request) const;

  std::shared_ptr<PluginInstance> plugin_;
  CellHold hold_cell_;
  mutable VerifiedTokens verified_;
  mutable TokenLeases leases_;
};

}  // namespace agentrt::core
