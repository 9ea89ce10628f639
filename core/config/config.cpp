// The layers around the config document: defaults, the file, the environment and the
// flags. Environment and flag values go through the same checks as file values, so a
// bad AGENTRT_MODE fails at start instead of being ignored.
#include "core/config/config.h"
#include "core/domain/json_duplicates.h"
#include "core/domain/json_text.h"
#include "core/log/logger.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <vector>

extern char** environ;

namespace agentrt::core {
namespace {

// Keys from the environment and the command line are named as the user typed them.
std::string describe(const std::string& key) {
  if (key.rfind("AGENTRT_", 0) == 0 || key.rfind("--", 0) == 0) return key;
  return "config key '" + key + "'";
}

}  // namespace

void reject_config_value(const std::string& key, const std::string& what,
                         const nlohmann::json& got) {
  throw ConfigError(key,
                    describe(key) + " must be " + what + ", got " + json_excerpt(got, kShownBytes));
}

namespace {

Config default_config() {
  Config config;
  // The echo provider needs no network, so a fresh install can hold a conversation.
  config.plugins["echo"] = PluginConfig{};
  return config;
}

std::string read_config_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw ConfigError("", "cannot read config file '" + path + "': " + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;  // a directory opens fine and fails here with EISDIR
      ::close(fd);
      throw ConfigError("", "cannot read config file '" + path + "': " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

Config apply_file(Config config, const std::string& path) {
  const std::string text = read_config_file(path);
  nlohmann::json document;
  DuplicateKeys duplicates;
  try {
    document = nlohmann::json::parse(text, std::ref(duplicates));
  } catch (const nlohmann::json::out_of_range&) {
    throw ConfigError("", "config file '" + path +
                              "' is not valid JSON: it holds a number too large to represent "
                              "(past about 1.8e308)");
  } catch (const nlohmann::json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at line L, column C: ...",
    // or out_of_range.406 for a number past a double; the bracketed id means nothing to
    // an operator.
    std::string detail = e.what();
    size_t end = detail.find("] ");
    if (detail.rfind("[json.exception", 0) == 0 && end != std::string::npos) {
      detail = detail.substr(end + 2);
    }
    // Its "last read: '...'" (or the number it quotes) is the file's own text, which
    // may be an API key: a key pasted with its newline was printed whole to stderr,
    // the journal under systemd. The line and column say where to look.
    detail = detail.substr(0, std::min(detail.find("; last read"), detail.find(" '")));
    throw ConfigError("", "config file '" + path + "' is not valid JSON: " + detail);
  }
  if (!document.is_object()) {
    throw ConfigError(
        "", "config file '" + path + "' must hold a JSON object, got " + document.type_name());
  }
  if (!duplicates.first().empty())
    throw ConfigError(duplicates.first(),
                      "config file '" + path + "': the key appears twice in its object");
  try {
    return apply_config_json(std::move(config), document);
  } catch (const ConfigError& e) {
    throw ConfigError(e.key(), "config file '" + path + "': " + e.what());
  }
}

void set_mode(Config& config, const std::string& value, const std::string& key) {
  if (value == "single") {
    config.mode = CellMode::single;
  } else if (value == "multi") {
    config.mode = CellMode::multi;
  } else {
    reject_config_value(key, "\"single\" or \"multi\"", value);
  }
}

void set_listen(Config& config, const std::string& value, const std::string& key) {
  parse_listen_address(value, key);
  config.listen = value;
}

void set_data_dir(Config& config, const std::string& value, const std::string& key) {
  if (value.empty()) reject_config_value(key, "a non-empty path", value);
  config.data_dir = value;
}

void set_log_level(Config& config, const std::string& value, const std::string& key) {
  if (!parse_log_level(value)) reject_config_value(key, "one of debug, info, warn, error", value);
  config.log_level = value;
}

// Empty elements ("a::b", a trailing ':') are skipped rather than meaning the current
// directory, which would load plugins from wherever agentd happened to start.
std::vector<std::string> split_dirs(const std::string& value) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(':', start);
    if (end == std::string::npos) end = value.size();
    if (end > start) dirs.push_back(value.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

const std::string* find_env(const Environment& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

// A plugin dir list from the environment or the flags REPLACES the lower layers' list
// rather than extending it: an operator overriding the dirs wants exactly those, and
// can repeat the file's entries if they want them too. AGENTRT_PLUGIN_DIRS="" clears it.
void apply_environment(Config& config, const Environment& env) {
  if (auto v = find_env(env, "AGENTRT_LISTEN")) set_listen(config, *v, "AGENTRT_LISTEN");
  if (auto v = find_env(env, "AGENTRT_DATA_DIR")) set_data_dir(config, *v, "AGENTRT_DATA_DIR");
  if (auto v = find_env(env, "AGENTRT_MODE")) set_mode(config, *v, "AGENTRT_MODE");
  if (auto v = find_env(env, "AGENTRT_LOG_LEVEL")) set_log_level(config, *v, "AGENTRT_LOG_LEVEL");
  if (auto v = find_env(env, "AGENTRT_PLUGIN_DIRS")) config.plugin_dirs = split_dirs(*v);
  if (auto v = find_env(env, "AGENTRT_METRICS")) {
    const auto access = parse_metrics_access(*v);
    if (!access) reject_config_value("AGENTRT_METRICS", "one of off, loopback, admin", *v);
    config.metrics.access = *access;
  }
}

void apply_flags(Config& config, const ConfigOverrides& flags) {
  if (flags.listen) set_listen(config, *flags.listen, "--listen");
  if (flags.data_dir) set_data_dir(config, *flags.data_dir, "--data-dir");
  if (flags.mode) set_mode(config, *flags.mode, "--mode");
  if (flags.log_level) set_log_level(config, *flags.log_level, "--log-level");
  if (!flags.plugin_dirs.empty()) {
    for (const std::string& dir : flags.plugin_dirs) {
      if (dir.empty()) reject_config_value("--plugin-dir", "a non-empty path", dir);
    }
    config.plugin_dirs = flags.plugin_dirs;
  }
}

std::optional<std::string> config_path(const ConfigOverrides& flags, const Environment& env) {
  if (flags.config_file) {
    if (flags.config_file->empty()) reject_config_value("--config", "a file path", "");
    return flags.config_file;
  }
  if (auto v = find_env(env, "AGENTRT_CONFIG")) {
    if (v->empty()) reject_config_value("AGENTRT_CONFIG", "a file path", "");
    return *v;
  }
  return std::nullopt;
}

bool valid_host(const std::string& host) {
  if (host.empty()) return false;
  for (char c : host) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) || std::iscntrl(u) || c == '/' || c == '[' || c == ']') return false;
  }
  return true;
}

}  // namespace

Environment process_environment() {
  // Only our own variables: the map is handed around and logged in diagnostics, and the
  // rest of the environment may hold secrets.
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.rfind("AGENTRT_", 0) != 0) continue;
    // The default prefix of the variables that hold keys (secrets.env_prefix).
    if (text.rfind(kDefaultSecretEnvPrefix, 0) == 0) continue;
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

// A relative secrets.dir is taken from where agentd starts, like every path of the
// config, and made absolute here so that what check-config prints is what serve uses.
// Unset, it is `secrets` beside the config file; without a file, there is no config dir,
// and the data dir stands in (effective_secrets_dir).
Config load_config(const ConfigOverrides& flags, const Environment& env) {
  Config config = default_config();
  const auto path = config_path(flags, env);
  if (path) config = apply_file(std::move(config), *path);
  apply_environment(config, env);
  apply_flags(config, flags);
  if (config.secrets.dir.empty() && path)
    config.secrets.dir = (std::filesystem::absolute(*path).parent_path() / "secrets").string();
  config.secrets.dir = effective_secrets_dir(config);
  return config;
}

std::string effective_secrets_dir(const Config& config) {
  const std::filesystem::path dir = config.secrets.dir.empty()
                                        ? std::filesystem::path(config.data_dir) / "secrets"
                                        : std::filesystem::path(config.secrets.dir);
  std::filesystem::path normal = std::filesystem::absolute(dir).lexically_normal();
  if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path();
  return normal.string();  // "/etc/keys/" is "/etc/keys": the fence compares prefixes
}

const std::set<std::string>& bundled_plugins() {
  static const std::set<std::string> names = {"echo",          "openai",     "anthropic", "ollama",
                                              "memory-sqlite", "auth-token", "mcp"};
  return names;
}

PluginSelection plugin_selection(const Config& config) {
  PluginSelection selection;
  selection.enabled = bundled_plugins();
  for (const auto& [name, plugin] : config.plugins) selection.enabled.insert(name);
  selection.enabled.insert(config.auth);
  selection.enabled.insert(config.memory_backend);
  for (const ToolServerConfig& server : config.tool_servers) selection.enabled.insert(server.type);
  for (const auto& [name, plugin] : config.plugins) {
    if (plugin.enabled) continue;
    selection.enabled.erase(name);
    selection.disabled.insert(name);
  }
  return selection;
}

std::pair<std::string, uint16_t> parse_listen_address(const std::string& value,
                                                      const std::string& key) {
  const std::string what = "HOST:PORT with PORT from 0 to 65535";
  size_t colon = value.rfind(':');
  if (colon == std::string::npos) reject_config_value(key, what, value);
  std::string host = value.substr(0, colon);
  const std::string port = value.substr(colon + 1);
  // An IPv6 literal must be bracketed, or "::1:80" would be ambiguous.
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    reject_config_value(key, what + " (bracket an IPv6 host: [::1]:9091)", value);
  }
  if (!valid_host(host)) reject_config_value(key, what, value);
  if (port.empty() || port.size() > 5) reject_config_value(key, what, value);
  for (char c : port) {
    if (c < '0' || c > '9') reject_config_value(key, what, value);
  }
  unsigned long number = std::stoul(port);
  if (number > 65535) reject_config_value(key, what, value);
  return {host, static_cast<uint16_t>(number)};
}

}  // namespace agentrt::core
