// Where plugin code may come from. A library's code runs as agentd the moment it is
// opened (its constructors run inside dlopen), so the host opens only a file that an
// enabled plugin's name maps to, from places nobody but root or agentd's own user can
// write (docs/operator-guide.md, "Plugins").
#pragma once

#include <optional>
#include <set>
#include <string>

namespace agentrt::core {

// Why plugins must not be opened from `dir`, or nullopt. It must be a directory owned by
// root or agentd's user and writable by neither group nor others; so must every
// directory above it, except that a world-writable one with the sticky bit (/tmp) passes
// there: nobody else can rename what it holds.
std::optional<std::string> plugin_dir_refusal(const std::string& dir);

// Why the plugin file `path` must not be opened, or nullopt: the file it names (links
// followed) must be a regular file owned by root or agentd's user and writable by neither
// group nor others, in a directory that plugin_dir_refusal passes.
std::optional<std::string> plugin_file_refusal(const std::string& path);

// The enabled plugin a file of a plugin dir is for, by its name: "<name>.so" or
// "agentrt-<name>.so"; empty when no name of `names` matches.
std::string plugin_named_by_file(const std::string& file_name, const std::set<std::string>& names);

// The name a file of a plugin dir would be enabled under ("agentrt-echo.so": echo).
std::string plugin_name_of_file(const std::string& file_name);

}  // namespace agentrt::core
