#include "core/auth/principal.h"

#include "core/domain/errors.h"

namespace agentrt::core {

std::string acting_actor(const Principal& who, const std::optional<std::string>& requested) {
  if (!who.admin) return who.actor;
  return requested && !requested->empty() ? *requested : kAdminActor;
}

std::optional<std::string> reading_actor(const Principal& who,
                                         const std::optional<std::string>& requested) {
  if (!who.admin) return who.actor;
  if (requested && !requested->empty()) return requested;
  return std::nullopt;
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
