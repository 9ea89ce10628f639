#include "tools/plugin-check/checks.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <mutex>
#include <thread>

namespace agentrt::plugin_check {
namespace {

using nlohmann::json;

const char* code_name(int32_t code) {
  static const char* const names[] = {
      "OK",       "INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION", "NOT_FOUND",
      "CONFLICT", "UNAVAILABLE",      "TIMEOUT",         "CANCELLED",  "UPSTREAM",
      "INTERNAL", "UNSUPPORTED",      "REFUSED"};
  return code >= 0 && code <= AGENTRT_ERR_REFUSED ? names[code] : "UNKNOWN_CODE";
}

// A create that must be refused: it passes when create fails with a message, warns
// when the plugin accepts the config (agentd would then run with a typo unnoticed).
Outcome expect_refused(const Context& context, const std::string& config) {
  try {
    core::PluginInstance instance(context.plugin, config);
  } catch (const core::PluginError& e) {
    if (std::string(e.what()).empty())
      return {Result::fail, std::string("refused without a message (") + code_name(e.code) + ")"};
    return {Result::pass, "refused: " + describe(e)};
  }
  return {Result::warn, "accepted " + config + "; a typo in an operator's config goes unnoticed"};
}

Outcome create_good(const Context& context) {
  try {
    core::PluginInstance instance(context.plugin, context.good_config);
  } catch (const core::PluginError& e) {
    return {Result::fail, "create with " + context.good_config + ": " + describe(e)};
  }
  return {Result::pass, "created with " + context.good_config};
}

}  // namespace

const char* result_name(Result result) {
  switch (result) {
    case Result::pass:
      return "PASS";
    case Result::warn:
      return "WARN";
    case Result::fail:
      return "FAIL";
    case Result::skip:
      return "SKIP";
  }
  return "FAIL";
}

std::string describe(const core::PluginError& error) {
  std::string text = code_name(error.code);
  text += ": ";
  text += error.what();
  if (error.http_status) text += " (HTTP " + std::to_string(error.http_status) + ")";
  return text;
}

std::string good_config(const core::LoadedPlugin& plugin, const Options& options) {
  json config = json::parse(options.config_json);
  const bool store =
      plugin.kind() == AGENTRT_KIND_MEMORY_BACKEND || plugin.kind() == AGENTRT_KIND_AUTH;
  if (store && !config.contains("data_dir")) config["data_dir"] = options.data_dir;
  // agentd sends the key only to a plugin built for 1.7 or later, which may refuse it.
  if (store && plugin.abi_minor() >= 7 && !config.contains("cursor_key"))
    config["cursor_key"] = "00112233445566778899aabbccddeeff";
  return config.dump();
}

std::vector<Check> create_checks() {
  return {
      {"create_rejects_non_object",
       [](const Context& c) { return expect_refused(c, "\"not an object\""); }},
      {"create_rejects_unknown_key",
       [](const Context& c) {
         json config = json::parse(c.good_config);
         config["unknown_key_xyz"] = 1;
         return expect_refused(c, config.dump());
       }},
      {"create", create_good},
  };
}

Check thread_safety_check(std::function<CheapCall(const Context&)> prepare) {
  return {"thread_safety", [prepare](const Context& context) -> Outcome {
            if (!context.plugin->thread_safe())
              return {Result::skip, "not flagged thread-safe: agentd serialises its calls"};
            const CheapCall cheap_call = prepare(context);
            constexpr int threads = 8, calls = 50;
            std::atomic<int> failures{0};
            std::mutex mutex;
            std::string first_error;
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t)
              pool.emplace_back([&] {
                for (int i = 0; i < calls; ++i) try {
                    cheap_call();
                  } catch (const std::exception& e) {
                    std::lock_guard<std::mutex> lock(mutex);
                    if (failures++ == 0) first_error = e.what();
                  }
              });
            for (std::thread& thread : pool) thread.join();
            if (failures)
              return {Result::fail, std::to_string(failures.load()) + " of " +
                                        std::to_string(threads * calls) +
                                        " calls failed, first: " + first_error};
            return {Result::pass, std::to_string(threads * calls) + " calls from " +
                                      std::to_string(threads) + " threads at once"};
          }};
}

std::vector<Check> checks_for(const core::LoadedPlugin& plugin) {
  std::vector<Check> checks = create_checks();
  std::vector<Check> kind;
  switch (plugin.kind()) {
    case AGENTRT_KIND_PROVIDER:
      kind = provider_checks();
      break;
    case AGENTRT_KIND_TOOL:
      kind = tool_checks();
      break;
    case AGENTRT_KIND_MEMORY_BACKEND:
      kind = memory_checks();
      break;
    case AGENTRT_KIND_AUTH:
      kind = auth_checks();
      break;
    default:
      break;
  }
  checks.insert(checks.end(), kind.begin(), kind.end());
  return checks;
}

}  // namespace agentrt::plugin_check
