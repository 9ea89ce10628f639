// agentd check-config: the effective settings, never a plugin's own config object
// (it may hold an API key).
#include "core/engine/engine.h"
#include "core/log/logger.h"
#include "core/plugin_host/plugin_files.h"
#include "core/store/data_dir.h"
#include "core/store/state_store.h"
#include "server/cli/commands.h"
#include "server/cli/plugin_dirs.h"

#include <Poco/Net/ServerSocket.h>

#include <filesystem>
#include <ostream>

namespace agentrt::server::cli {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "(none)" : out;
}

void print_summary(const core::Config& config, std::ostream& out) {
  std::vector<std::string> plugins;
  for (const auto& [name, plugin] : config.plugins)
    plugins.push_back(name + (plugin.enabled ? " (enabled)" : " (disabled)"));
  const core::ServerConfig& s = config.server;
  const core::LimitsConfig& l = config.limits;
  out << "mode: " << (config.mode == core::CellMode::multi ? "multi" : "single") << '\n'
      << "listen: " << config.listen << '\n'
      << "data_dir: " << config.data_dir << '\n'
      << "log_level: " << config.log_level << '\n'
      << "plugin_dirs: " << join(engine_plugin_dirs(config)) << '\n'
      << "plugins: " << join(plugins) << '\n'
      << "secrets: dir=" << config.secrets.dir << " env_prefix=" << config.secrets.env_prefix
      << '\n'
      << "auth: " << config.auth << '\n'
      << "memory_backend: " << config.memory_backend << '\n'
      << "admin_token_file: "
      << (config.admin_token_file.value_or(config.mode == core::CellMode::single) ? "true"
                                                                                  : "false")
      << '\n'
      << "server: threads=" << s.threads << " max_queued=" << s.max_queued
      << " thread_stack_kb=" << s.thread_stack_kb
      << " keep_alive_timeout_s=" << s.keep_alive_timeout_s
      << " receive_timeout_s=" << s.receive_timeout_s << " send_timeout_s=" << s.send_timeout_s
      << " request_timeout_s=" << s.request_timeout_s << " shutdown_grace_s=" << s.shutdown_grace_s
      << " thread_idle_s=" << s.thread_idle_s
      << " batch_scheduling=" << (s.batch_scheduling ? "true" : "false") << '\n'
      << "limits: max_body_bytes=" << l.max_body_bytes << " provider_retries=" << l.provider_retries
      << " provider_retry_max_wait_ms=" << l.provider_retry_max_wait_ms
      << " sse_ping_ms=" << l.sse_ping_ms << " history_cache_mb=" << l.history_cache_mb
      << " max_answer_bytes=" << l.max_answer_bytes << " max_answer_ms=" << l.max_answer_ms << '\n';
}

// What serve would refuse before any plugin runs, found without touching the data dir or
// taking the port, so that check-config does not say "config ok" for a data dir that is a
// file or not writable, a store newer than the build, or an address not on this host. A
// port already taken is not one: the agentd being checked may hold it.
std::vector<std::string> start_problems(const core::Config& config) {
  std::vector<std::string> problems;
  if (auto problem = core::data_dir_problem(config.data_dir))
    problems.push_back(*problem);
  else if (auto store = core::StateStore::open_problem(config.data_dir))
    problems.push_back(*store);
  const auto [host, port] = core::parse_listen_address(config.listen, "listen");
  try {
    Poco::Net::ServerSocket socket;
    socket.bind(Poco::Net::SocketAddress(host, 0), true, false);
  } catch (const Poco::Exception& e) {
    problems.push_back("listen: cannot listen on " + host + ": " + e.displayText());
  }
  return problems;
}

}  // namespace

int run_check_config(const Arguments& args, const core::Environment& env, std::ostream& out,
                     std::ostream& err) {
  // A ConfigError goes up to cli::run, which names the key and exits 1.
  const core::Config config = core::load_config(args.overrides, env);
  // What serve refuses to start without: the auth module and the memory backend, made
  // as serve makes them (their own config included) on a throwaway data dir.
  core::Logger::set_level(args.overrides.log_level ? *core::parse_log_level(config.log_level)
                                                   : core::LogLevel::warn);
  std::vector<std::string> problems = start_problems(config);
  for (std::string& problem : core::Engine(config, engine_plugin_dirs(config)).service_problems())
    problems.push_back(std::move(problem));
  // serve opens no plugin from these, and would run on without what they hold.
  for (const std::string& dir : engine_plugin_dirs(config)) {
    std::error_code missing;  // a missing directory is named by service_problems
    if (!std::filesystem::is_directory(dir, missing)) continue;
    if (auto refusal = core::plugin_dir_refusal(dir)) problems.push_back(*refusal);
  }
  for (const std::string& problem : problems) err << "config error: " << problem << '\n';
  if (!problems.empty()) return kExitError;
  out << "config ok\n";
  print_summary(config, out);
  return kExitOk;
}

}  // namespace agentrt::server::cli
