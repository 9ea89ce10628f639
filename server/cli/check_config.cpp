// agentd check-config: the effective settings, never a plugin's own config object
// (it may hold an API key).
#include "core/engine/engine.h"
#include "core/log/logger.h"
#include "server/cli/commands.h"
#include "server/cli/plugin_dirs.h"

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
      << "auth: " << config.auth << '\n'
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

}  // namespace

int run_check_config(const Arguments& args, const core::Environment& env, std::ostream& out,
                     std::ostream& err) {
  // A ConfigError goes up to cli::run, which names the key and exits 1.
  const core::Config config = core::load_config(args.overrides, env);
  // What serve refuses to start without: the auth module and the memory backend, made
  // as serve makes them (their own config included) on a throwaway data dir.
  core::Logger::set_level(args.overrides.log_level ? *core::parse_log_level(config.log_level)
                                                   : core::LogLevel::warn);
  const std::vector<std::string> problems =
      core::Engine(config, engine_plugin_dirs(config)).service_problems();
  for (const std::string& problem : problems) err << "config error: " << problem << '\n';
  if (!problems.empty()) return kExitError;
  out << "config ok\n";
  print_summary(config, out);
  return kExitOk;
}

}  // namespace agentrt::server::cli
