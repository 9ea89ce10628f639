// Who is calling, as the auth module vouches for it, and the rules that follow from
// it. Every route asks these functions instead of deciding for itself, so the actor
// rule (a non-admin token always acts as its own actor) cannot be forgotten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

struct Principal {
  std::string token_id;
  std::string actor;
  std::optional<std::string> cell;  // the only cell this token may use; none = any
  bool admin = false;
  // Which incarnation of the request's cell it was admitted to (the cell's row seq; a
  // cell deleted and made again under its id has a new one), set once the route's cell is
  // found. A write checks it, so that one admitted before a deletion never lands in the
  // cell made again after it. None: checked against the cell as it is.
  std::optional<int64_t> cell_seq;
};

constexpr const char* kAdminActor = "admin";

// The longest actor name, in characters.
inline constexpr size_t kActorMaxCharacters = 256;

// Throws invalid, naming field 'actor', for a name longer than kActorMaxCharacters,
// or with a control character or a blank at either end (check_name_text).
void check_actor_name(std::string_view actor);

// The actor a write acts as: a non-admin token's own actor whatever was asked; an admin
// token's requested actor, or "admin" when it names none.
std::string acting_actor(const Principal& who, const std::optional<std::string>& requested);

// The actor reads filter on: a non-admin token's own actor; for an admin token the
// requested actor, or none (no filter) when it names none.
std::optional<std::string> reading_actor(const Principal& who,
                                         const std::optional<std::string>& requested);

// Throws forbidden unless `who` may act in `cell`.
void require_cell_access(const Principal& who, const std::string& cell);

// Throws forbidden unless `who` is an admin.
void require_admin(const Principal& who);

// Throws forbidden unless `who` is an admin of the whole engine: an admin token scoped to
// a cell is valid only in that cell, and cells, tokens and shared providers lie in none.
void require_engine_admin(const Principal& who);

}  // namespace agentrt::core
