// agentd serve: config, engine, HTTP server, then wait for SIGTERM/SIGINT and stop
// gracefully. Destruction order matters: the server (and every handler thread) goes
// before the engine the handlers use.
#include "core/engine/engine.h"
#include "core/log/logger.h"
#include "core/metrics/metrics.h"
#include "core/store/sqlite.h"
#include "server/api/routes.h"
#include "server/cli/commands.h"
#include "server/cli/plugin_dirs.h"
#include "server/http/auth_middleware.h"
#include "server/http/http_server.h"
#include "server/http/limits_middleware.h"
#include "server/signals.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

namespace agentrt::server::cli {

namespace {

const char* mode_name(core::CellMode mode) {
  return mode == core::CellMode::multi ? "multi" : "single";
}

std::shared_ptr<RequestPipeline> make_pipeline(const core::Config& config, core::Engine& engine) {
  auto router = std::make_shared<Router>(config.mode);
  api::register_api_routes(*router, engine);
  auto pipeline =
      std::make_shared<RequestPipeline>(router, PipelineOptions{config.limits.max_body_bytes});
  pipeline->add_middleware(make_auth_middleware(engine));
  pipeline->add_middleware(make_limits_middleware(engine));
  return pipeline;
}

// Shown once, on the first start with an empty store. Straight to stderr, not through
// the logger: log lines are collected and kept, and a token must never be in them.
void show_first_admin_token(const core::StartReport& report) {
  if (!report.first_admin_token) return;
  std::cerr << "agentd: first start: the admin token (shown only this once) is\n"
            << "  " << *report.first_admin_token << '\n';
  if (report.admin_token_file)
    std::cerr << "agentd: it was also written to " << *report.admin_token_file << '\n';
  std::cerr.flush();
}

// A connection thread busy with a provider call holds four descriptors: the client's
// socket, the upstream connection, and the wake-up socket pair of the thread's libcurl
// multi handle (the pair and the warm connection stay for the thread's life). Each
// queued connection holds one; 256 cover the stores, logs and listener. Debian's
// default soft limit of 1024 would refuse calls long before the pool is full, so the
// soft limit is raised towards the hard one, as much as needed.
rlim_t open_files_needed(const core::ServerConfig& server) {
  return 4 * static_cast<rlim_t>(server.threads) + server.max_queued + 256;
}

void raise_open_file_limit(const core::Config& config) {
  const rlim_t needed = open_files_needed(config.server);
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? needed : std::min(needed, limit.rlim_max);
  if (limit.rlim_cur > before) ::setrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < needed)
    core::log_warn("the open-file limit is low for server.threads",
                   {{"limit", static_cast<uint64_t>(limit.rlim_cur)},
                    {"needed", static_cast<uint64_t>(needed)},
                    {"threads", config.server.threads}});
}

// agentd's threads hand work to each other all the time: a group commit's leader wakes
// the writers it served, a stream loop wakes the thread that waits for its run. Under
// the default policy each woken thread preempts the one that woke it, which then waits
// for a core with its work half done; under SCHED_BATCH the woken thread waits for the
// end of the running one's slice (at 16-256 concurrent /chat, 6-14% more requests a
// second; bench/README.md). Set on the main thread before any other thread starts:
// Linux threads inherit their creator's policy.
void apply_scheduling(const core::ServerConfig& server) {
  if (!server.batch_scheduling) return;
  const sched_param param{};  // SCHED_BATCH takes priority 0
  if (::sched_setscheduler(0, SCHED_BATCH, &param) != 0)
    core::log_warn("cannot use batch scheduling", {{"error", std::strerror(errno)}});
}

// Serves until a shutdown signal; returns the exit status. The engine is started.
int serve_until_signal(const core::Config& config, core::Engine& engine, ShutdownSignals& signals,
                       ListenSocket bound) {
  HttpServer server(HttpServerOptions::from_config(config), make_pipeline(config, engine));
  server.start(std::move(bound));
  core::Logger::write_whatever_level(
      core::LogLevel::info, "listening",
      {{"address", server.address()}, {"mode", mode_name(config.mode)}});

  const int signal = signals.wait();
  core::log_info("shutting down",
                 {{"signal", signal_name(signal)}, {"grace_s", config.server.shutdown_grace_s}});
  // A second signal ends the grace period at once: an operator who presses Ctrl-C twice,
  // or a supervisor's second SIGTERM, would otherwise wait it out.
  const auto result = server.shutdown(
      std::chrono::seconds(config.server.shutdown_grace_s),
      [&engine] { engine.runs().interrupt_all(); },
      [&signals] {
        if (!signals.arrived()) return false;
        core::log_warn("a second signal: the grace period ends now");
        return true;
      });
  if (!result.released) {
    // A handler ignores its cut connection and still uses the engine: tearing the
    // engine down under it would be worse than leaving without cleanup.
    core::log_error("requests still running after shutdown; exiting without cleanup",
                    {{"connections", server.current_connections()}});
    std::_Exit(kExitError);
  }
  if (!result.finished) core::log_warn("requests were cut at the end of the grace period");
  return kExitOk;
}

}  // namespace

int run_serve(const Arguments& args, const core::Environment& env) {
  ShutdownSignals signals;  // first, so that every thread started later inherits the mask
  core::Config config;
  try {
    config = core::load_config(args.overrides, env);
  } catch (const core::ConfigError& e) {
    print_config_error(e, std::cerr);
    return kExitError;
  }
  core::Logger::set_level(*core::parse_log_level(config.log_level));
  apply_scheduling(config.server);
  raise_open_file_limit(config);

  // Bound before the data dir is touched: a start that cannot listen changes nothing.
  std::optional<ListenSocket> bound;
  try {
    bound.emplace(HttpServerOptions::from_config(config));
  } catch (const std::exception& e) {
    core::log_error("cannot listen", {{"listen", config.listen}, {"error", e.what()}});
    return kExitError;
  }
  // Before the engine, so that its plugins' failures at start count; ended after it.
  const core::metrics::Installed metrics(config.metrics);
  auto engine = std::make_unique<core::Engine>(config, engine_plugin_dirs(config));
  try {
    show_first_admin_token(engine->start());
  } catch (const core::DataDirInUse& e) {
    core::log_error("the data dir is in use by another agentd",
                    {{"data_dir", config.data_dir}, {"pid", static_cast<int64_t>(e.holder())}});
    return kExitError;
  } catch (const core::StoreError& e) {
    core::log_error("cannot open the state store",
                    {{"data_dir", config.data_dir}, {"error", e.what()}});
    return kExitError;
  } catch (const core::StartError& e) {
    core::log_error("cannot start the engine", {{"error", e.what()}});
    return kExitError;
  }
  const int status = serve_until_signal(config, *engine, signals, std::move(*bound));
  engine.reset();
  core::log_info("stopped", {{"status", status}});
  return status;
}

}  // namespace agentrt::server::cli
