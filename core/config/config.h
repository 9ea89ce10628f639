// The engine's configuration: one JSON file, overridden by AGENTRT_* environment
// variables, overridden by command-line flags (flag > environment > file > default).
// Every key is known: an unknown key anywhere is an error naming its full path.
#pragma once

#include "core/audit/audit_config.h"
#include "core/domain/secret_ref.h"
#include "core/limits/limit_settings.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core {

enum class CellMode { single, multi };

struct ServerConfig {
  unsigned threads = 4096;         // connection threads; one per live stream or keep-alive
  unsigned max_queued = 4096;      // accepted connections waiting for a thread
  unsigned thread_stack_kb = 256;  // small stacks so thousands of streams fit
  unsigned keep_alive_timeout_s = 5;
  unsigned receive_timeout_s = 30;
  unsigned send_timeout_s = 30;     // a client that stops reading frees its thread
  unsigned request_timeout_s = 30;  // a request's head and body arrive within it, whole
  unsigned shutdown_grace_s = 10;   // running requests may finish for this long
  // A connection thread idle this long ends, with what it holds (its stack, an upstream
  // connection kept warm): after a burst, the pool shrinks back.
  unsigned thread_idle_s = 60;
  // Linux SCHED_BATCH for every agentd thread: a woken thread waits for the running
  // one's slice instead of preempting it (see docs/operator-guide.md).
  bool batch_scheduling = true;
};

struct LimitsConfig {
  uint64_t max_body_bytes = 1024 * 1024;
  // Retries of a provider call that failed with 429 or 5xx before its first delta.
  unsigned provider_retries = 2;
  // A Retry-After longer than this is not waited for: the run fails at once.
  unsigned provider_retry_max_wait_ms = 20000;
  unsigned sse_ping_ms = 15000;  // ": ping" comment while a stream is silent this long
  // Memory for the recent history of sessions runs went to lately (history_cache.h);
  // 0 holds none, and every run reads its whole window from the store.
  unsigned history_cache_mb = 32;
  // A run's answer is cut here and the run fails: an upstream that never stops once
  // grew agentd by gigabytes and lost the whole turn to SQLite's string limit.
  uint64_t max_answer_bytes = 8 * 1024 * 1024;
  // A run's provider call still under way after this long fails with provider_timeout: an
  // upstream that trickles bytes never trips the stall timeout.
  uint64_t max_answer_ms = 600000;
  // A server tool's result is cut here, with a note the model reads: one MCP server's
  // 50 MB answer would otherwise fill the model's window and the session's store.
  uint64_t max_tool_output_bytes = 256 * 1024;
  // Rate limits and quotas of every cell that has none of its own (PUT
  // /admin/cells/{id}/limits); none by default (docs/operator-guide.md).
  limits::CellLimits cell_defaults;
};

struct PluginConfig {
  bool enabled = true;
  nlohmann::json config = nlohmann::json::object();  // handed to the plugin's create
};

// The bounds of a tool server's `timeout_ms`, in the config file and over the API.
inline constexpr int64_t kToolTimeoutMinMs = 100;
inline constexpr int64_t kToolTimeoutMaxMs = 3600000;

// One `tool_servers` entry (docs/tools.md): an instance of the tool plugin `type` (the
// bundled `mcp` by default), made with the whole entry as its config.
struct ToolServerConfig {
  std::string name;  // [A-Za-z0-9_-]{1,64}, unique
  std::string type = "mcp";
  std::string require_approval = "never";  // "always" or "never"
  uint64_t timeout_ms = 60000;             // a call's limit; then it is cancelled
  nlohmann::json entry = nlohmann::json::object();
};

// Who may read GET /metrics (docs/operator-guide.md, "Metrics"). Off, nothing is
// measured either.
enum class MetricsAccess { off, loopback, admin };

struct MetricsConfig {
  MetricsAccess access = MetricsAccess::loopback;
  // Distinct cells the `cell` label tells apart; the rest are counted as "_other", so
  // that a deployment of many tenants does not make a series per tenant.
  unsigned max_cells = 100;
};

// Where credential references written over the admin API may point
// (docs/operator-guide.md, "Secrets"); the config file's own may point anywhere.
struct SecretsConfig {
  // `file` references resolve only inside it. load_config makes it absolute; unset, it
  // is `secrets` beside the config file, or inside the data dir when there is no file.
  std::string dir;
  // `env` references name only variables whose names start with it.
  std::string env_prefix = kDefaultSecretEnvPrefix;
};

struct Config {
  CellMode mode = CellMode::single;
  std::string listen = "127.0.0.1:9091";
  std::string data_dir = "./agentrt-data";
  std::string log_level = "info";
  std::vector<std::string> plugin_dirs;          // searched after the bundled dir
  std::map<std::string, PluginConfig> plugins;   // by plugin name; "echo" is on by default
  std::string auth = "auth-token";               // the auth plugin that verifies tokens
  std::string memory_backend = "memory-sqlite";  // the memory-backend plugin
  // Write the first admin token to <data_dir>/admin.token (0600). Unset: on in
  // single-cell mode, off in multi-cell mode.
  std::optional<bool> admin_token_file;
  ServerConfig server;
  LimitsConfig limits;
  std::vector<ToolServerConfig> tool_servers;  // in the file's order
  MetricsConfig metrics;
  AuditConfig audit;
  SecretsConfig secrets;

  // Named in `plugins` with "enabled": false. A plugin the config does not name is not
  // disabled: it is enabled or not by the engine's own rules (echo, auth, memory).
  bool disabled(const std::string& plugin) const {
    auto it = plugins.find(plugin);
    return it != plugins.end() && !it->second.enabled;
  }
};

// The plugins agentrt ships (plugins/), enabled unless the config disables them: a
// fresh install needs no config to load them.
const std::set<std::string>& bundled_plugins();

// Which plugin files discovery may open (docs/operator-guide.md, "Plugins"): a plugin
// is opened only when it is enabled, and a file of the plugin dirs that no enabled
// name maps to is never opened, so no code of it runs.
struct PluginSelection {
  // The bundled plugins, each `plugins` entry, the auth module, the memory backend and
  // each tool server's type, less the disabled.
  std::set<std::string> enabled;
  std::set<std::string> disabled;  // `plugins.<name>.enabled` false
};
PluginSelection plugin_selection(const Config& config);

// The secrets directory in effect: `secrets.dir`, else `<data_dir>/secrets`, absolute.
std::string effective_secrets_dir(const Config& config);

// A config that cannot be used. `key` is the full dotted path ("server.threads"), or
// empty when the problem is the file itself.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string key, const std::string& message)
      : std::runtime_error(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// How much of a refused value a ConfigError quotes, in bytes.
inline constexpr size_t kShownBytes = 60;

// Throws ConfigError "config key '<key>' must be <what>, got <got>" (an environment
// variable or a flag named as typed: "AGENTRT_MODE must be ..."), `got` written as JSON
// and cut before kShownBytes (json_excerpt). Both readers, of the file and of the
// environment and flags, refuse a value through it.
[[noreturn]] void reject_config_value(const std::string& key, const std::string& what,
                                      const nlohmann::json& got);

// Overrides from the command line; unset members leave the lower layers alone.
struct ConfigOverrides {
  std::optional<std::string> config_file;
  std::optional<std::string> listen;
  std::optional<std::string> data_dir;
  std::optional<std::string> mode;
  std::optional<std::string> log_level;
  std::vector<std::string> plugin_dirs;
};

// Environment variables read: AGENTRT_CONFIG, AGENTRT_LISTEN, AGENTRT_DATA_DIR,
// AGENTRT_MODE, AGENTRT_LOG_LEVEL, AGENTRT_PLUGIN_DIRS (':'-separated), AGENTRT_METRICS
// (metrics.access).
using Environment = std::map<std::string, std::string>;
Environment process_environment();

// Builds the effective config: defaults, then the file (flag's, else AGENTRT_CONFIG's,
// else none), then the environment, then the flags. Throws ConfigError.
Config load_config(const ConfigOverrides& flags, const Environment& env);

// Parses and validates one config document on top of `base`. Throws ConfigError.
Config apply_config_json(Config base, const nlohmann::json& document);

// "off", "loopback", "admin"; nullopt for any other word.
std::optional<MetricsAccess> parse_metrics_access(std::string_view word);

// "HOST:PORT" with PORT 0..65535; throws ConfigError naming `key`.
std::pair<std::string, uint16_t> parse_listen_address(const std::string& value,
                                                      const std::string& key);

}  // namespace agentrt::core
