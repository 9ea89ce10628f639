#include "core/auth/principal.h"

#include "core/domain/errors.h"
#include "core/domain/name_text.h"
#include "text/utf8.h"

namespace agentrt::core {

void check_actor_name(std::string_view actor) {
  // A name no token could be issued for (auth_service.cpp) is refused where an admin
  // names it too: a run or a memory entry stored under it could never be its actor's.
  if (text::utf8_length(actor) > kActorMaxCharacters)
    throw invalid("field 'actor' must be at most 256 characters");
  check_name_text(actor, "actor");
}

std::string acting_actor(const Principal& who, const std::optional<std::string>& requested) {
  if (!who.admin) return who.actor;
  if (!requested || requested->empty()) return kAdminActor;
  check_actor_name(*requested);
  return *requested;
}

std::optional<std::string> reading_actor(const Principal& who,
                                         const std::optional<std::string>& requested) {
  if (!who.admin) return who.actor;
  if (!requested || requested->empty()) return std::nullopt;
  check_actor_name(*requested);
  return requested;
}

void require_cell_access(const Principal& who, const std::string& cell) {
  if (who.cell && *who.cell != cell)
    throw DomainError(ErrorKind::forbidden, "this token is not valid in cell '" + cell + "'");
}

void require_admin(const Principal& who) {
  if (!who.admin) throw DomainError(ErrorKind::forbidden, "this endpoint needs an admin token");
}

void require_engine_admin(const Principal& who) {
  require_admin(who);
  if (who.cell)
    throw DomainError(ErrorKind::forbidden, "this token is valid only in cell '" + *who.cell +
                                                "'; this endpoint needs an admin token of no cell");
}

}  // namespace agentrt::core
