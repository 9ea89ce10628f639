// agentd: the agentrt engine's server and command line. See cli/arguments.cpp for the
// verbs and flags.
#include "core/config/config.h"
#include "server/cli/commands.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return agentrt::server::cli::run(args, agentrt::core::process_environment());
}
