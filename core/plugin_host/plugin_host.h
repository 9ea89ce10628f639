// Discovers plugins in directories, checks their ABI facts before calling anything
// else, and makes instances. A plugin that fails any check is refused with a reason
// naming the file, and discovery goes on with the next one.
#pragma once

#include "core/plugin_host/loaded_plugin.h"

#include <memory>
#include <string>
#include <vector>

namespace agentrt::core {

// What discovery found at one path: a usable plugin or the reason it was refused.
struct PluginStatus {
  std::string path;
  std::string name;     // empty when refused before the name could be read
  std::string kind;     // "provider", "memory_backend", "auth", "tool"
  std::string version;  // the plugin's own version
  std::string abi;      // "MAJOR.MINOR" the plugin was built with
  bool loaded = false;
  std::string error;  // why not, when !loaded
};

class PluginHost {
 public:
  PluginHost();
  ~PluginHost();
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // Loads every "*.so" in each directory, in order, sorted by file name within one.
  // A missing directory is skipped; a second plugin with a name already loaded is
  // refused. Never throws for a bad plugin.
  void scan(const std::vector<std::string>& directories);

  // Loads one file; returns its status (also recorded in statuses()).
  PluginStatus load(const std::string& path);

  const std::vector<PluginStatus>& statuses() const { return statuses_; }
  std::vector<std::shared_ptr<const LoadedPlugin>> plugins() const { return plugins_; }
  std::shared_ptr<const LoadedPlugin> find(const std::string& name) const;

 private:
  std::vector<PluginStatus> statuses_;
  std::vector<std::shared_ptr<const LoadedPlugin>> plugins_;
};

}  // namespace agentrt::core
