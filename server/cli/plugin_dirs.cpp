#include "server/cli/plugin_dirs.h"

#include <filesystem>
#include <system_error>

#ifndef AGENTRT_BUNDLED_PLUGIN_RELDIR
#error "AGENTRT_BUNDLED_PLUGIN_RELDIR must be defined by the build (server/CMakeLists.txt)"
#endif

namespace agentrt::server::cli {

std::string bundled_plugin_dir() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return (exe.parent_path() / AGENTRT_BUNDLED_PLUGIN_RELDIR).lexically_normal().string();
}

std::vector<std::string> engine_plugin_dirs(const core::Config& config) {
  std::vector<std::string> dirs;
  if (std::string bundled = bundled_plugin_dir(); !bundled.empty()) dirs.push_back(bundled);
  dirs.insert(dirs.end(), config.plugin_dirs.begin(), config.plugin_dirs.end());
  return dirs;
}

}  // namespace agentrt::server::cli
