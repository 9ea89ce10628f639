#include "core/auth/principal.h"

#include "core/domain/errors.h"

namespace agentrt::core {

void check_actor_name(std::string_view actor) {
  // What a person reads as one name must be one name: a control character (NUL among
  // them) or a blank at an end made names that print alike and are not (audit 8b, N2).
  for (size_t i = 0; i < actor.size(); ++i) {
    const auto byte = static_cast<unsigned char>(actor[i]);
    const bool c1 = byte == 0xC2 && i + 1 < actor.size() &&
                    static_cast<unsigned char>(actor[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(actor[i + 1]) <= 0x9F;
    if (byte < 0x20 || byte == 0x7F || c1)
      throw invalid("field 'actor' must not hold a control character");
  }
  if (!actor.empty() && (actor.front() == ' ' || actor.back() == ' '))
    throw invalid("field 'actor' must not begin or end with a blank");
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
