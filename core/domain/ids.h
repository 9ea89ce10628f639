// Identifiers the engine makes: a prefix naming the kind and 24 random hex characters
// (96 bits), e.g. run_3f9a0c2e51b7d4810a6c9e22.
#pragma once

#include <string>

namespace agentrt::core {

std::string random_hex(size_t bytes);
std::string new_id(const char* prefix);

}  // namespace agentrt::core
