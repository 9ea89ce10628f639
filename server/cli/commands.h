// agentd's verbs. Each returns the process exit status: 0 success, 1 a configuration or
// runtime error (reported on stderr), 2 a usage error.
#pragma once

#include "core/config/config.h"
#include "server/cli/arguments.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace agentrt::server::cli {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

// Parses `args` (without the program name) and runs the verb.
int run(const std::vector<std::string>& args, const core::Environment& env);

// "config error: <key>: <message>", or without the key when the file itself is at fault.
void print_config_error(const core::ConfigError& error, std::ostream& err);

int run_version(std::ostream& out);
int run_check_config(const Arguments& args, const core::Environment& env, std::ostream& out,
                     std::ostream& err);
int run_plugins(const Arguments& args, const core::Environment& env, std::ostream& out,
                std::ostream& err);
int run_serve(const Arguments& args, const core::Environment& env);
int run_admin_token(const Arguments& args, const core::Environment& env, std::ostream& out,
                    std::ostream& err);

}  // namespace agentrt::server::cli
