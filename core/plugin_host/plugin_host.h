// Discovers plugins in directories, checks their ABI facts before calling anything
// else, and makes instances. A plugin that fails any check is refused with a reason
// naming the file, and discovery goes on with the next one.
#pragma once

#include "core/config/config.h"
#include "core/plugin_host/loaded_plugin.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::core {

// What discovery found at one path: a usable plugin, or the reason it was refused or
// not opened (a file no enabled plugin maps to, a directory others may write).
struct PluginStatus {
  std::string path;
  std::string name;     // empty when refused before the name could be read (a disabled
                        // plugin's file: the name it was disabled under)
  std::string kind;     // "provider", "memory_backend", "auth", "tool"
  std::string version;  // the plugin's own version
  std::string abi;      // "MAJOR.MINOR" the plugin was built with
  bool opened = false;  // its library was opened, so its code ran
  bool loaded = false;
  std::string error;  // why not, when !loaded
};

class PluginHost {
 public:
  PluginHost();
  ~PluginHost();
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // Loads, from each directory in order, the "*.so" files (sorted by name within one)
  // that `selection` enables: "<name>.so" or "agentrt-<name>.so" of an enabled name, the
  // first file found for a name. Every other file is listed, never opened; so is a
  // directory plugin_dir_refusal refuses, whole. A missing directory is skipped. Never
  // throws for a bad plugin.
  void scan(const std::vector<std::string>& directories, const PluginSelection& selection);

  // Loads one file, after plugin_file_refusal passes it; returns its status (also
  // recorded in statuses()). `expected_name`, when set, is the name the file is enabled
  // under: a plugin that calls itself otherwise is refused.
  PluginStatus load(const std::string& path, const std::string& expected_name = {});

  const std::vector<PluginStatus>& statuses() const { return statuses_; }
  std::vector<std::shared_ptr<const LoadedPlugin>> plugins() const { return plugins_; }
  std::shared_ptr<const LoadedPlugin> find(const std::string& name) const;
  // Whether discovery saw a file for `name`, loaded or not (a disabled plugin's too).
  bool discovered(const std::string& name) const;

 private:
  void consider(const std::string& file, const PluginSelection& selection,
                std::map<std::string, std::string>& opened);
  void not_opened(const std::string& path, const std::string& name, const std::string& reason);

  std::vector<PluginStatus> statuses_;
  std::vector<std::shared_ptr<const LoadedPlugin>> plugins_;
};

}  // namespace agentrt::core
