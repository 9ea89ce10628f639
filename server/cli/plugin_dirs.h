// Where agentd looks for plugins: the directory of its bundled plugins, found relative
// to the executable (the same layout in the build tree and in an install), then the
// directories the config names.
#pragma once

#include "core/config/config.h"

#include <string>
#include <vector>

namespace agentrt::server::cli {

// Empty when the executable's own path cannot be read.
std::string bundled_plugin_dir();

std::vector<std::string> engine_plugin_dirs(const core::Config& config);

}  // namespace agentrt::server::cli
