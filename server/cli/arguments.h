// agentd's command line: one verb (serve by default) and flags that override the
// config file and the environment.
#pragma once

#include "core/config/config.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt::server::cli {

enum class Verb { serve, plugins, check_config, admin_token, version, help };

struct Arguments {
  Verb verb = Verb::serve;
  core::ConfigOverrides overrides;
  bool json = false;  // plugins: one JSON object per line
};

// A command line that makes no sense; agentd prints it with the usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `args` excludes the program name. Throws UsageError.
Arguments parse_arguments(const std::vector<std::string>& args);

const char* usage_text();

}  // namespace agentrt::server::cli
