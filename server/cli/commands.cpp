#include "server/cli/commands.h"

#include "core/version.h"

#include <agentrt/agentrt_plugin.h>

#include <iostream>

namespace agentrt::server::cli {

void print_config_error(const core::ConfigError& error, std::ostream& err) {
  err << "config error: ";
  if (!error.key().empty()) err << error.key() << ": ";
  err << error.what() << '\n';
}

int run_version(std::ostream& out) {
  out << "agentd " << AGENTRT_VERSION << " (plugin ABI " << AGENTRT_ABI_VERSION_STRING << ")\n";
  return kExitOk;
}

int run(const std::vector<std::string>& args, const core::Environment& env) {
  Arguments parsed;
  try {
    parsed = parse_arguments(args);
  } catch (const UsageError& e) {
    std::cerr << "agentd: " << e.what() << "\n\n" << usage_text();
    return kExitUsage;
  }
  try {
    switch (parsed.verb) {
      case Verb::help:
        std::cout << usage_text();
        return kExitOk;
      case Verb::version:
        return run_version(std::cout);
      case Verb::check_config:
        return run_check_config(parsed, env, std::cout, std::cerr);
      case Verb::plugins:
        return run_plugins(parsed, env, std::cout, std::cerr);
      case Verb::admin_token:
        return run_admin_token(parsed, env, std::cout, std::cerr);
      case Verb::serve:
        return run_serve(parsed, env);
    }
  } catch (const core::ConfigError& e) {
    print_config_error(e, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "agentd: " << e.what() << '\n';
  }
  return kExitError;
}

}  // namespace agentrt::server::cli
