// The checks of one plugin kind. Each check is self-contained (it makes its own
// instance), so that after one crashes the plugin, a fresh process can go on with the
// next.
#pragma once

#include "core/plugin_host/loaded_plugin.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt::plugin_check {

struct Options {
  std::string plugin_path;
  std::string config_json = "{}";  // the operator's part of the good config
  std::string data_dir;            // a temporary data dir for stores
  std::string model, prompt = "Say hello in one short sentence.";
  std::string tool, arguments;  // empty: the first tool, with {}
  bool json = false;
  int timeout_s = 30;  // for one check, before its process is killed
};

enum class Result { pass, warn, fail, skip };
const char* result_name(Result result);

struct Outcome {
  Result result = Result::pass;
  std::string detail;
};

// Thrown by a check that cannot run (an instance could not be made, no model).
class Skip : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Thrown by a check that found a broken rule.
class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Context {
  std::shared_ptr<const core::LoadedPlugin> plugin;
  std::string good_config;  // the config agentd would hand create
  const Options* options;
};

struct Check {
  std::string name;
  std::function<Outcome(const Context&)> run;
};

// The config agentd hands create: the operator's, plus the data dir and cursor key a
// store gets (core/engine/engine.cpp).
std::string good_config(const core::LoadedPlugin& plugin, const Options& options);

// The checks after load and exported symbols, in the order they run.
std::vector<Check> checks_for(const core::LoadedPlugin& plugin);

// Shared by the kinds' checks.
std::vector<Check> create_checks();
// Runs prepare's call (the kind's cheap call on one instance) from 8 threads at once.
using CheapCall = std::function<void()>;
Check thread_safety_check(std::function<CheapCall(const Context&)> prepare);
std::vector<Check> provider_checks();
std::vector<Check> tool_checks();
std::vector<Check> memory_checks();
std::vector<Check> auth_checks();

// "CODE_NAME: message" for a plugin error.
std::string describe(const core::PluginError& error);

}  // namespace agentrt::plugin_check

namespace agentrt::plugin_check {

// An instance of the plugin made with the good config; a check that needs one is
// skipped when it cannot be made (the "create" check says why).
template <typename Instance>
std::unique_ptr<Instance> make_instance(const Context& context) {
  try {
    return std::make_unique<Instance>(context.plugin, context.good_config);
  } catch (const core::PluginError& e) {
    throw Skip("no instance: " + describe(e));
  }
}

}  // namespace agentrt::plugin_check
