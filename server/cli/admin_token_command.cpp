// `agentd admin-token`: the way back in for an operator who lost the admin token. It
// opens the same data dir as the engine (SQLite lets it do so while agentd serves),
// asks the auth module for a fresh admin token and prints it on stdout only.
#include "core/engine/engine.h"
#include "core/log/logger.h"
#include "server/cli/commands.h"
#include "server/cli/plugin_dirs.h"

#include <filesystem>
#include <iostream>

namespace agentrt::server::cli {

int run_admin_token(const Arguments& args, const core::Environment& env, std::ostream& out,
                    std::ostream& err) {
  core::Config config = core::load_config(args.overrides, env);
  core::Logger::set_level(core::LogLevel::warn);  // stdout carries the token, stderr stays quiet
  // A data dir no agentd ever served (a mistyped path) would get a store of its own,
  // and the token printed would open nothing.
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(config.data_dir) / "state.db", ec)) {
    err << "agentd: no agentd state in '" << config.data_dir
        << "': start agentd on it first, or name the data dir it serves (--data-dir)\n";
    return kExitError;
  }
  core::Engine engine(config, engine_plugin_dirs(config));
  try {
    engine.start(core::EngineRole::guest);
  } catch (const std::exception& e) {
    err << "agentd: cannot open the engine's state: " << e.what() << '\n';
    return kExitError;
  }
  out << engine.auth().mint_admin() << '\n';
  core::log_warn("admin token minted from the command line");
  return kExitOk;
}

}  // namespace agentrt::server::cli
