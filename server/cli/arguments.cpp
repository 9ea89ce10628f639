#include "server/cli/arguments.h"

#include <optional>
#include <string_view>
#include <utility>

namespace agentrt::server::cli {

namespace {

std::optional<Verb> verb_named(std::string_view name) {
  if (name == "serve") return Verb::serve;
  if (name == "plugins") return Verb::plugins;
  if (name == "check-config") return Verb::check_config;
  if (name == "admin-token") return Verb::admin_token;
  if (name == "version") return Verb::version;
  if (name == "help") return Verb::help;
  return std::nullopt;
}

// Walks the arguments, handing out flag values given as "--flag value" or "--flag=value".
class Cursor {
 public:
  explicit Cursor(const std::vector<std::string>& args) : args_(args) {}
  bool done() const { return index_ >= args_.size(); }

  // The next argument; for "--name=value" only "--name", the value kept for value().
  std::string next() {
    std::string arg = args_[index_++];
    inline_value_.reset();
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value_ = arg.substr(eq + 1);
      arg.resize(eq);
    }
    return arg;
  }

  std::string value(const std::string& flag) {
    if (inline_value_) return *std::exchange(inline_value_, std::nullopt);
    if (done()) throw UsageError(flag + " needs a value");
    return args_[index_++];
  }

  // A flag without a value must not have been written as "--flag=value".
  void no_value(const std::string& flag) const {
    if (inline_value_) throw UsageError(flag + " takes no value");
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t index_ = 0;
  std::optional<std::string> inline_value_;
};

// Returns false when `flag` is not one of the config overrides.
bool take_override(const std::string& flag, Cursor& cursor, core::ConfigOverrides& overrides) {
  if (flag == "--config") {
    overrides.config_file = cursor.value(flag);
  } else if (flag == "--listen") {
    overrides.listen = cursor.value(flag);
  } else if (flag == "--data-dir") {
    overrides.data_dir = cursor.value(flag);
  } else if (flag == "--mode") {
    overrides.mode = cursor.value(flag);
  } else if (flag == "--log-level") {
    overrides.log_level = cursor.value(flag);
  } else if (flag == "--plugin-dir") {
    overrides.plugin_dirs.push_back(cursor.value(flag));
  } else {
    return false;
  }
  return true;
}

}  // namespace

Arguments parse_arguments(const std::vector<std::string>& args) {
  Arguments parsed;
  bool have_verb = false, help = false;
  Cursor cursor(args);
  while (!cursor.done()) {
    const std::string arg = cursor.next();
    if (take_override(arg, cursor, parsed.overrides)) continue;
    if (arg == "--json" || arg == "-h" || arg == "--help") {
      cursor.no_value(arg);
      (arg == "--json" ? parsed.json : help) = true;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "'");
    } else if (have_verb) {
      throw UsageError("unexpected argument '" + arg + "'");
    } else if (auto verb = verb_named(arg)) {
      parsed.verb = *verb;
      have_verb = true;
    } else {
      throw UsageError("unknown verb '" + arg + "'");
    }
  }
  if (help) parsed.verb = Verb::help;
  if (parsed.json && parsed.verb != Verb::plugins && parsed.verb != Verb::help)
    throw UsageError("--json applies to the plugins verb only");
  return parsed;
}

const char* usage_text() {
  return R"(Usage: agentd [VERB] [OPTIONS]

Verbs:
  serve          start the engine and its HTTP API (the default)
  plugins        list every discovered plugin: loaded, or why not
  check-config   validate the configuration and print the effective settings
  admin-token    mint a fresh admin token (for an operator who lost theirs) and print
                 it on stdout; works while agentd serves on the same data dir
  version        print the version and the plugin ABI
  help           print this help

Options:
  --config FILE         the JSON config file
  --listen HOST:PORT    listen address (default 127.0.0.1:9091; port 0: any free port)
  --data-dir DIR        state directory (default ./agentrt-data)
  --mode single|multi   cell mode (default single)
  --log-level LEVEL     debug, info (default), warn or error
  --plugin-dir DIR      a plugin directory searched after the bundled one; repeatable
  --json                plugins: one JSON object per line instead of a table
  -h, --help            print this help

Environment: AGENTRT_CONFIG, AGENTRT_LISTEN, AGENTRT_DATA_DIR, AGENTRT_MODE,
AGENTRT_LOG_LEVEL, AGENTRT_PLUGIN_DIRS (':'-separated) set the same as the flags.
A flag beats its variable, which beats the config file, which beats the default.

Exit status: 0 success, 1 configuration or runtime error, 2 usage error.
)";
}

}  // namespace agentrt::server::cli
