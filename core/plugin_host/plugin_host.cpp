#include "core/plugin_host/plugin_host.h"

#include "core/log/logger.h"
#include "core/plugin_host/abi_check.h"
#include "core/plugin_host/plugin_files.h"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace agentrt::core {
namespace {

namespace fs = std::filesystem;

// Copies the plugin's struct into a zero-filled host struct: no more bytes than the
// plugin declares, no more than the host knows. Fields the plugin lacks stay zero.
template <class T>
void copy_sized(T& into, const void* from, uint32_t plugin_size) {
  std::memset(&into, 0, sizeof into);
  std::memcpy(&into, from, std::min<size_t>(plugin_size, sizeof into));
}

// Reads a table's struct_size and, when it covers the 1.0 table, copies the table.
std::optional<std::string> copy_table(uint32_t kind, const void* table,
                                      agentrt_provider_vtable_t& provider,
                                      agentrt_memory_vtable_t& memory, agentrt_auth_vtable_t& auth,
                                      agentrt_tool_vtable_t& tool) {
  uint32_t size = 0;
  std::memcpy(&size, table, sizeof size);
  if (size < table_size_1_0(kind))
    return std::string(plugin_kind_name(kind)) + " table struct_size " + std::to_string(size) +
           " is smaller than the " + (kind == AGENTRT_KIND_TOOL ? "1.9" : "1.0") + " size " +
           std::to_string(table_size_1_0(kind));
  if (kind == AGENTRT_KIND_PROVIDER) {
    copy_sized(provider, table, size);
    return check_provider_table(provider);
  }
  if (kind == AGENTRT_KIND_MEMORY_BACKEND) {
    copy_sized(memory, table, size);
    return check_memory_table(memory);
  }
  if (kind == AGENTRT_KIND_TOOL) {
    copy_sized(tool, table, size);
    return check_tool_table(tool);
  }
  copy_sized(auth, table, size);
  return check_auth_table(auth);
}

}  // namespace

PluginHost::PluginHost() = default;
PluginHost::~PluginHost() = default;

void PluginHost::scan(const std::vector<std::string>& directories,
                      const PluginSelection& selection) {
  std::map<std::string, std::string> opened;  // plugin name -> the file opened for it
  for (const std::string& directory : directories) {
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) {
      // A typo in a path an operator added would otherwise show only as a plugin
      // missing, later and elsewhere.
      log_warn("plugin directory not found; nothing loaded from it", {{"dir", directory}});
      continue;
    }
    std::vector<std::string> files;
    fs::directory_iterator entries(directory, ec);
    if (ec) {
      // One agentd's user may not read: its plugins then showed only as "not found in
      // the plugin directories", which sent an operator the wrong way.
      log_warn("plugin directory not readable; nothing loaded from it",
               {{"dir", directory}, {"error", ec.message()}});
      continue;
    }
    if (auto refusal = plugin_dir_refusal(directory)) {
      not_opened(directory, "", "directory refused, no plugin in it is opened: " + *refusal);
      continue;
    }
    for (const auto& entry : entries) {
      if (entry.path().extension() == ".so" && entry.is_regular_file(ec))
        files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) consider(file, selection, opened);
  }
}

void PluginHost::not_opened(const std::string& path, const std::string& name,
                            const std::string& reason) {
  PluginStatus status;
  status.path = path;
  status.name = name;
  status.error = reason;
  log_warn("plugin not opened", {{"path", path}, {"name", name}, {"reason", reason}});
  statuses_.push_back(std::move(status));
}

// A file of a plugin dir: opened only when an enabled name maps to it, and only the first
// file of that name.
void PluginHost::consider(const std::string& file, const PluginSelection& selection,
                          std::map<std::string, std::string>& opened) {
  const std::string name = plugin_named_by_file(file, selection.enabled);
  if (name.empty()) {
    const std::string disabled = plugin_named_by_file(file, selection.disabled);
    if (!disabled.empty())
      return not_opened(file, disabled,
                        "disabled in the config (plugins." + disabled + ".enabled is false)");
    const std::string would_be = plugin_name_of_file(file);
    return not_opened(file, "",
                      "no enabled plugin is named '" + would_be + "'; to load it, name it in " +
                          "the config's plugins (\"" + would_be + "\": {})");
  }
  const auto first = opened.find(name);
  if (first != opened.end())
    return not_opened(file, name,
                      "plugin '" + name + "' is opened from " + first->second + " already");
  opened.emplace(name, file);
  load(file, name);
}

PluginStatus PluginHost::load(const std::string& path, const std::string& expected_name) {
  PluginStatus status;
  status.path = path;
  status.name = expected_name;  // until the plugin says its own
  auto refuse = [&](const std::string& reason) {
    status.error = reason;
    log_warn("plugin refused", {{"path", path}, {"name", status.name}, {"reason", reason}});
    statuses_.push_back(status);
    return status;
  };
  if (auto refusal = plugin_file_refusal(path)) return refuse(*refusal);

  status.opened = true;
  auto library = std::make_shared<boost::dll::shared_library>();
  try {
    library->load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return refuse(std::string("cannot load the library: ") + e.what());
  }
  if (!library->has(AGENTRT_PLUGIN_QUERY_SYMBOL))
    return refuse("not an agentrt plugin: it exports no " AGENTRT_PLUGIN_QUERY_SYMBOL);

  const agentrt_plugin_descriptor_t* raw = nullptr;
  try {
    raw = library->get<const agentrt_plugin_descriptor_t*()>(AGENTRT_PLUGIN_QUERY_SYMBOL)();
  } catch (...) {
    return refuse(AGENTRT_PLUGIN_QUERY_SYMBOL " threw an exception");
  }
  if (raw == nullptr) return refuse(AGENTRT_PLUGIN_QUERY_SYMBOL " returned NULL");
  if (auto reason = check_abi_facts(*raw)) return refuse(*reason);

  agentrt_plugin_descriptor_t descriptor;
  copy_sized(descriptor, raw, raw->struct_size);
  status.abi = std::to_string(descriptor.abi_major) + "." + std::to_string(descriptor.abi_minor);
  // A valid name is known before the rest is judged, so every later refusal names it.
  if (valid_plugin_name(descriptor.name)) status.name = descriptor.name;
  if (auto reason = check_descriptor(descriptor)) return refuse(*reason);
  if (!expected_name.empty() && expected_name != descriptor.name)
    return refuse("the file is named for plugin '" + expected_name + "' but holds plugin '" +
                  descriptor.name + "'");
  status.kind = plugin_kind_name(descriptor.kind);
  status.version = descriptor.version;
  if (auto existing = find(status.name))
    return refuse("a plugin named '" + status.name + "' is already loaded from " +
                  existing->path());

  auto plugin = std::make_shared<LoadedPlugin>(library, path, descriptor);
  if (auto reason = copy_table(descriptor.kind, descriptor.vtable, plugin->provider_,
                               plugin->memory_, plugin->auth_, plugin->tool_))
    return refuse(*reason);

  status.loaded = true;
  plugins_.push_back(std::move(plugin));
  statuses_.push_back(status);
  log_info("plugin loaded", {{"path", path},
                             {"name", status.name},
                             {"kind", status.kind},
                             {"version", status.version},
                             {"abi", status.abi}});
  return status;
}

bool PluginHost::discovered(const std::string& name) const {
  return std::any_of(statuses_.begin(), statuses_.end(),
                     [&](const PluginStatus& status) { return status.name == name; });
}

std::shared_ptr<const LoadedPlugin> PluginHost::find(const std::string& name) const {
  for (const auto& plugin : plugins_)
    if (plugin->name() == name) return plugin;
  return nullptr;
}

}  // namespace agentrt::core
