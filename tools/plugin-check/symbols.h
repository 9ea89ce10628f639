// The plugin's exported dynamic symbols: exactly one, agentrt_plugin_query, so that
// nothing of its internals binds to the host's or another plugin's symbols.
#pragma once

#include "tools/plugin-check/checks.h"

#include <optional>
#include <string>
#include <vector>

namespace agentrt::plugin_check {

// The defined dynamic symbols as `nm -D --defined-only` lists them; nullopt when nm
// cannot be run.
std::optional<std::vector<std::string>> symbols_by_nm(const std::string& path);

// The same from the ELF file's dynamic symbol table; nullopt when it is no ELF file
// this reader knows (64-bit, of the host's byte order).
std::optional<std::vector<std::string>> symbols_by_elf(const std::string& path);

Outcome exported_symbols(const std::string& path);

}  // namespace agentrt::plugin_check
