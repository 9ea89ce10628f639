// agentrt-plugin-check <plugin.so>: loads a plugin the way agentd does and exercises
// its kind, printing PASS/WARN/FAIL/SKIP lines (or --json); exits 1 on any FAIL.
#include "tools/plugin-check/runner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using agentrt::plugin_check::Options;

constexpr const char* kUsage =
    "usage: agentrt-plugin-check [options] <plugin.so>\n"
    "  --config FILE      the plugin's config object (default {}); a store also gets\n"
    "                     data_dir (a temporary dir) and cursor_key, as agentd adds them\n"
    "  --model ID         the model a provider's completion asks (default: the first)\n"
    "  --prompt TEXT      the completion's one user message\n"
    "  --tool NAME        the tool a tool plugin's call runs (default: the first)\n"
    "  --arguments JSON   the call's arguments object (default {})\n"
    "  --timeout SECONDS  how long one check may take (default 30)\n"
    "  --json             one JSON object instead of lines\n"
    "Exit status: 0 no check failed, 1 a check failed, 2 usage error.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read --config " + path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json config = nlohmann::json::parse(text.str(), nullptr, false);
  if (!config.is_object()) throw UsageError("--config " + path + " is not a JSON object");
  return config.dump();
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--config") {
      options.config_json = read_config(value());
    } else if (arg == "--model") {
      options.model = value();
    } else if (arg == "--prompt") {
      options.prompt = value();
    } else if (arg == "--tool") {
      options.tool = value();
    } else if (arg == "--arguments") {
      options.arguments = value();
      if (!nlohmann::json::parse(options.arguments, nullptr, false).is_object())
        throw UsageError("--arguments must be a JSON object");
    } else if (arg == "--timeout") {
      options.timeout_s = std::atoi(value().c_str());
      if (options.timeout_s < 1) throw UsageError("--timeout must be a positive number");
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option " + arg);
    } else if (options.plugin_path.empty()) {
      options.plugin_path = arg;
    } else {
      throw UsageError("one plugin at a time");
    }
  }
  if (options.plugin_path.empty()) throw UsageError("no plugin named");
  return options;
}

// A data dir of its own for the stores' checks, removed afterwards.
std::string make_data_dir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "agentrt-plugin-check-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary data dir");
  return pattern;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "agentrt-plugin-check: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    options.data_dir = make_data_dir();
    const agentrt::plugin_check::Report report = agentrt::plugin_check::run_checks(options);
    std::error_code ignored;
    std::filesystem::remove_all(options.data_dir, ignored);
    std::cout << (options.json ? report_json(report) : report_text(report)) << std::flush;
    return report.passed() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "agentrt-plugin-check: " << e.what() << "\n";
    return 1;
  }
}
