// The config file's document: every key is checked against the known set, so a typo
// ("server.thread") fails loudly instead of silently keeping a default.
#include "core/config/config.h"
#include "core/log/logger.h"
#include "core/runs/tool_spec.h"

namespace agentrt::core {
namespace {

using nlohmann::json;

[[noreturn]] void unknown_key(const std::string& key) {
  throw ConfigError(key, "unknown config key '" + key + "'");
}

const std::string& expect_string(const json& value, const std::string& key) {
  if (!value.is_string()) reject_config_value(key, "a string", value);
  return value.get_ref<const std::string&>();
}

bool expect_bool(const json& value, const std::string& key) {
  if (!value.is_boolean()) reject_config_value(key, "true or false", value);
  return value.get<bool>();
}

uint64_t expect_uint(const json& value, const std::string& key, uint64_t min, uint64_t max) {
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  // Negative integers are number_integer; fractions and huge values are floats.
  if (value.is_number_unsigned()) {
    uint64_t n = value.get<uint64_t>();
    if (n >= min && n <= max) return n;
  } else if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    uint64_t n = static_cast<uint64_t>(value.get<int64_t>());
    if (n >= min && n <= max) return n;
  }
  reject_config_value(key, range, value);
}

void expect_object(const json& value, const std::string& key, const std::string& what) {
  if (!value.is_object()) reject_config_value(key, what, value);
}

struct ServerField {
  const char* name;
  unsigned ServerConfig::*member;
  unsigned min;
  unsigned max;
};

constexpr ServerField kServerFields[] = {
    {"threads", &ServerConfig::threads, 1, 65535},
    {"max_queued", &ServerConfig::max_queued, 1, 1000000},
    {"thread_stack_kb", &ServerConfig::thread_stack_kb, 64, 65536},
    {"keep_alive_timeout_s", &ServerConfig::keep_alive_timeout_s, 1, 3600},
    {"receive_timeout_s", &ServerConfig::receive_timeout_s, 1, 3600},
    {"send_timeout_s", &ServerConfig::send_timeout_s, 1, 3600},
    {"request_timeout_s", &ServerConfig::request_timeout_s, 1, 3600},
    {"shutdown_grace_s", &ServerConfig::shutdown_grace_s, 0, 3600},
    {"thread_idle_s", &ServerConfig::thread_idle_s, 1, 3600},
};

void apply_server(ServerConfig& server, const json& section) {
  expect_object(section, "server", "an object");
  for (const auto& [name, value] : section.items()) {
    const ServerField* field = nullptr;
    for (const ServerField& candidate : kServerFields) {
      if (name == candidate.name) field = &candidate;
    }
    const std::string key = "server." + name;
    if (name == "batch_scheduling") {
      server.batch_scheduling = expect_bool(value, key);
      continue;
    }
    if (field == nullptr) unknown_key(key);
    server.*(field->member) =
        static_cast<unsigned>(expect_uint(value, key, field->min, field->max));
  }
}

// The same reader as PUT /admin/cells/{id}/limits' (core/limits/limit_settings.h), its
// refusals named as config keys.
limits::CellLimits parse_cell_defaults(const json& value) {
  const std::string key = "limits.cell_defaults";
  expect_object(value, key, "an object of token_rate, cell_rate, actor_runs, cell_tokens_per_day");
  try {
    return limits::apply_limits({}, value);
  } catch (const limits::LimitValueError& e) {
    const std::string full = key + "." + e.field();
    if (e.fault() == limits::LimitValueError::Fault::unknown) unknown_key(full);
    throw ConfigError(full, "config key '" + full + "' " + e.problem());
  }
}

void apply_limits(LimitsConfig& limits, const json& section) {
  expect_object(section, "limits", "an object");
  for (const auto& [name, value] : section.items()) {
    const std::string key = "limits." + name;
    if (name == "max_body_bytes") {
      limits.max_body_bytes = expect_uint(value, key, 1024, 1073741824);
    } else if (name == "provider_retries") {
      limits.provider_retries = static_cast<unsigned>(expect_uint(value, key, 0, 10));
    } else if (name == "provider_retry_max_wait_ms") {
      limits.provider_retry_max_wait_ms = static_cast<unsigned>(expect_uint(value, key, 0, 600000));
    } else if (name == "sse_ping_ms") {
      limits.sse_ping_ms = static_cast<unsigned>(expect_uint(value, key, 100, 3600000));
    } else if (name == "history_cache_mb") {
      limits.history_cache_mb = static_cast<unsigned>(expect_uint(value, key, 0, 1048576));
    } else if (name == "max_answer_bytes") {
      limits.max_answer_bytes = expect_uint(value, key, 1024, 268435456);
    } else if (name == "max_answer_ms") {
      limits.max_answer_ms = expect_uint(value, key, 1000, 86400000);
    } else if (name == "max_tool_output_bytes") {
      limits.max_tool_output_bytes = expect_uint(value, key, 1024, 67108864);
    } else if (name == "cell_defaults") {
      limits.cell_defaults = parse_cell_defaults(value);
    } else {
      unknown_key(key);
    }
  }
}

void apply_metrics(MetricsConfig& metrics, const json& section) {
  expect_object(section, "metrics", "an object");
  for (const auto& [name, value] : section.items()) {
    const std::string key = "metrics." + name;
    if (name == "access") {
      const auto access = parse_metrics_access(expect_string(value, key));
      if (!access) reject_config_value(key, "one of \"off\", \"loopback\", \"admin\"", value);
      metrics.access = *access;
    } else if (name == "max_cells") {
      metrics.max_cells = static_cast<unsigned>(expect_uint(value, key, 1, 10000));
    } else {
      unknown_key(key);
    }
  }
}

void apply_secrets(SecretsConfig& secrets, const json& section) {
  expect_object(section, "secrets", "an object");
  for (const auto& [name, value] : section.items()) {
    const std::string key = "secrets." + name;
    if (name == "dir") {
      if (expect_string(value, key).empty()) reject_config_value(key, "a non-empty path", value);
      secrets.dir = value.get<std::string>();
    } else if (name == "env_prefix") {
      // Empty would let the API name any variable of agentd's environment.
      if (expect_string(value, key).empty())
        reject_config_value(key, "a non-empty prefix of variable names", value);
      secrets.env_prefix = value.get<std::string>();
    } else {
      unknown_key(key);
    }
  }
}

// Entries merge into `plugins` (which holds the defaults), so naming another plugin
// does not switch echo off; only "echo":{"enabled":false} does.
void apply_plugins(std::map<std::string, PluginConfig>& plugins, const json& section) {
  expect_object(section, "plugins", "an object of plugin name to settings");
  for (const auto& [name, entry] : section.items()) {
    if (name.empty()) throw ConfigError("plugins", "config key 'plugins' has an empty plugin name");
    const std::string key = "plugins." + name;
    expect_object(entry, key, "an object with \"enabled\" and/or \"config\"");
    PluginConfig& plugin = plugins[name];
    for (const auto& [field, value] : entry.items()) {
      if (field == "enabled") {
        plugin.enabled = expect_bool(value, key + ".enabled");
      } else if (field == "config") {
        expect_object(value, key + ".config", "an object");
        plugin.config = value;  // replaces a lower layer's object: it is the plugin's whole config
      } else {
        unknown_key(key + "." + field);
      }
    }
  }
}

// The keys the engine reads itself; the rest (url, command, headers, ...) are the
// plugin's, which refuses what it does not know when the server is made.
ToolServerConfig parse_tool_server(const json& entry, const std::string& key) {
  expect_object(entry, key, "an object with \"name\" and the server's settings");
  ToolServerConfig server;
  server.entry = entry;
  const auto name = entry.find("name");
  if (name == entry.end() || !name->is_string() || !valid_tool_name(name->get<std::string>()))
    reject_config_value(key + ".name", "a name of 1 to 64 of A-Z a-z 0-9 _ -",
                        name == entry.end() ? json() : *name);
  server.name = name->get<std::string>();
  if (auto type = entry.find("type"); type != entry.end()) {
    if (expect_string(*type, key + ".type").empty())
      reject_config_value(key + ".type", "a tool plugin's name", *type);
    server.type = type->get<std::string>();
  }
  if (auto approval = entry.find("require_approval"); approval != entry.end()) {
    const std::string& word = expect_string(*approval, key + ".require_approval");
    if (word != "always" && word != "never")
      reject_config_value(key + ".require_approval", "\"always\" or \"never\"", *approval);
    server.require_approval = word;
  }
  if (auto timeout = entry.find("timeout_ms"); timeout != entry.end())
    server.timeout_ms =
        expect_uint(*timeout, key + ".timeout_ms", kToolTimeoutMinMs, kToolTimeoutMaxMs);
  return server;
}

std::vector<ToolServerConfig> parse_tool_servers(const json& value) {
  if (!value.is_array()) reject_config_value("tool_servers", "an array of tool servers", value);
  std::vector<ToolServerConfig> servers;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string key = "tool_servers[" + std::to_string(i) + "]";
    ToolServerConfig server = parse_tool_server(value[i], key);
    for (const ToolServerConfig& earlier : servers)
      if (earlier.name == server.name)
        throw ConfigError(key + ".name", "config key '" + key + ".name' repeats the tool server '" +
                                             server.name + "'");
    servers.push_back(std::move(server));
  }
  return servers;
}

std::vector<std::string> parse_plugin_dirs(const json& value) {
  const char* what = "an array of non-empty strings";
  if (!value.is_array()) reject_config_value("plugin_dirs", what, value);
  std::vector<std::string> dirs;
  for (const json& item : value) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      reject_config_value("plugin_dirs", what, value);
    }
    dirs.push_back(item.get<std::string>());
  }
  return dirs;
}

void apply_scalar(Config& config, const std::string& key, const json& value) {
  if (key == "mode") {
    const std::string& mode = expect_string(value, key);
    if (mode == "single") {
      config.mode = CellMode::single;
    } else if (mode == "multi") {
      config.mode = CellMode::multi;
    } else {
      reject_config_value(key, "\"single\" or \"multi\"", value);
    }
  } else if (key == "listen") {
    parse_listen_address(expect_string(value, key), key);
    config.listen = value.get<std::string>();
  } else if (key == "data_dir") {
    if (expect_string(value, key).empty()) reject_config_value(key, "a non-empty string", value);
    config.data_dir = value.get<std::string>();
  } else if (key == "log_level") {
    if (!parse_log_level(expect_string(value, key))) {
      reject_config_value(key, "one of \"debug\", \"info\", \"warn\", \"error\"", value);
    }
    config.log_level = value.get<std::string>();
  } else if (key == "auth") {
    if (expect_string(value, key).empty()) reject_config_value(key, "a plugin name", value);
    config.auth = value.get<std::string>();
  } else if (key == "memory_backend") {
    if (expect_string(value, key).empty()) reject_config_value(key, "a plugin name", value);
    config.memory_backend = value.get<std::string>();
  } else if (key == "admin_token_file") {
    config.admin_token_file = expect_bool(value, key);
  } else {
    unknown_key(key);
  }
}

}  // namespace

std::optional<MetricsAccess> parse_metrics_access(std::string_view word) {
  if (word == "off") return MetricsAccess::off;
  if (word == "loopback") return MetricsAccess::loopback;
  if (word == "admin") return MetricsAccess::admin;
  return std::nullopt;
}

Config apply_config_json(Config base, const nlohmann::json& document) {
  if (!document.is_object()) {
    throw ConfigError("", std::string("config must be a JSON object, got ") + document.type_name());
  }
  for (const auto& [key, value] : document.items()) {
    if (key == "server") {
      apply_server(base.server, value);
    } else if (key == "limits") {
      apply_limits(base.limits, value);
    } else if (key == "plugins") {
      apply_plugins(base.plugins, value);
    } else if (key == "plugin_dirs") {
      base.plugin_dirs = parse_plugin_dirs(value);
    } else if (key == "tool_servers") {
      base.tool_servers = parse_tool_servers(value);
    } else if (key == "metrics") {
      apply_metrics(base.metrics, value);
    } else if (key == "audit") {
      apply_audit_config(base.audit, value);
    } else if (key == "secrets") {
      apply_secrets(base.secrets, value);
    } else {
      apply_scalar(base, key, value);
    }
  }
  return base;
}

}  // namespace agentrt::core
