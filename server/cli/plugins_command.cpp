// agentd plugins: every plugin discovery saw, as a table or as JSON lines.
#include "core/engine/engine.h"
#include "core/log/logger.h"
#include "server/cli/commands.h"
#include "server/cli/plugin_dirs.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <ostream>
#include <string>
#include <vector>

namespace agentrt::server::cli {

namespace {

std::string or_dash(const std::string& value) {
  return value.empty() ? "-" : value;
}

std::string status_text(const core::PluginStatus& plugin) {
  if (plugin.loaded) return "loaded";
  return (plugin.opened ? "refused: " : "not opened: ") + plugin.error;
}

void print_json_lines(const std::vector<core::PluginStatus>& plugins, std::ostream& out) {
  for (const core::PluginStatus& p : plugins) {
    nlohmann::json line = {{"name", p.name},    {"kind", p.kind}, {"version", p.version},
                           {"abi", p.abi},      {"path", p.path}, {"opened", p.opened},
                           {"loaded", p.loaded}};
    if (!p.loaded) line["error"] = p.error;
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
}

void print_table(const std::vector<core::PluginStatus>& plugins, std::ostream& out) {
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows{{"NAME", "KIND", "VERSION", "ABI", "PATH", "STATUS"}};
  for (const core::PluginStatus& p : plugins) {
    rows.push_back({or_dash(p.name), or_dash(p.kind), or_dash(p.version), or_dash(p.abi), p.path,
                    status_text(p)});
  }
  std::array<std::size_t, 6> width{};
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i + 1 < row.size(); ++i)
      line += row[i] + std::string(width[i] - row[i].size() + 2, ' ');
    out << line << row.back() << '\n';
  }
}

// The services serve cannot start without, when no loaded plugin of theirs is listed: for
// a binary copied without its lib/, the listing would otherwise say "no plugins found"
// and exit 0.
std::vector<std::string> missing_services(const core::Config& config,
                                          const std::vector<core::PluginStatus>& plugins) {
  auto loaded = [&](const std::string& name, const char* kind) {
    for (const core::PluginStatus& p : plugins)
      if (p.loaded && p.name == name && p.kind == kind) return true;
    return false;
  };
  std::vector<std::string> missing;
  if (!loaded(config.auth, "auth")) missing.push_back("the auth module '" + config.auth + "'");
  if (!loaded(config.memory_backend, "memory_backend"))
    missing.push_back("the memory backend '" + config.memory_backend + "'");
  return missing;
}

}  // namespace

int run_plugins(const Arguments& args, const core::Environment& env, std::ostream& out,
                std::ostream& err) {
  // A ConfigError goes up to cli::run, which names the key and exits 1.
  const core::Config config = core::load_config(args.overrides, env);
  // The listing already says what loaded; the engine's per-plugin info lines would only
  // repeat it, so they show only when asked for with --log-level.
  core::Logger::set_level(args.overrides.log_level ? *core::parse_log_level(config.log_level)
                                                   : core::LogLevel::warn);
  core::Engine engine(config, engine_plugin_dirs(config));
  const std::vector<core::PluginStatus> plugins = engine.plugin_statuses();
  if (args.json) {
    print_json_lines(plugins, out);
  } else if (plugins.empty()) {
    out << "no plugins found; searched:";
    for (const std::string& dir : engine_plugin_dirs(config)) out << ' ' << dir;
    out << '\n';
  } else {
    print_table(plugins, out);
  }
  const std::vector<std::string> missing = missing_services(config, plugins);
  for (const std::string& service : missing)
    err << "agentd: serve would not start: " << service << " is not loaded\n";
  return missing.empty() ? kExitOk : kExitError;
}

}  // namespace agentrt::server::cli
