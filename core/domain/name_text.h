// Names a person reads (an actor, an agent's name) must read as one name: two that
// print alike must be the same bytes.
#pragma once

#include <string_view>

namespace agentrt::core {

// Throws invalid, naming `field`, for a control character (C0, DEL or C1, NUL among them)
// or a blank at either end: such names print alike and are not the same.
void check_name_text(std::string_view text, const char* field);

}  // namespace agentrt::core
