#include "mcp/mcp_config.h"

#include <nlohmann/json.hpp>

#include <set>

namespace agentrt::mcp {
namespace {

using nlohmann::json;
using sdk::Error;

[[noreturn]] void refuse(const std::string& why) {
  throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "mcp config: " + why);
}

void check_keys(const json& config) {
  // name, type, require_approval and timeout_ms are the host's; the rest are ours.
  static const std::set<std::string> known = {
      "name", "type", "url", "headers", "command", "env", "cwd", "timeout_ms", "require_approval"};
  for (const auto& item : config.items())
    if (!known.count(item.key())) refuse("unknown key \"" + item.key() + "\"");
}

std::vector<std::string> parse_command(const json& command) {
  if (!command.is_array() || command.empty()) refuse("\"command\" must be a non-empty array");
  std::vector<std::string> out;
  for (const json& arg : command) {
    if (!arg.is_string()) refuse("\"command\" must hold strings only");
    out.push_back(arg.get<std::string>());
  }
  if (out[0].empty()) refuse("\"command\" names no program");
  return out;
}

std::vector<std::string> parse_headers(const json& headers, const sdk::Host& host) {
  if (!headers.is_object()) refuse("\"headers\" must be an object");
  std::vector<std::string> out;
  for (const auto& item : headers.items()) {
    const std::string& name = item.key();
    if (name.empty() || name.find_first_of(":\r\n ") != std::string::npos)
      refuse("header name \"" + name + "\" is not valid");
    if (!item.value().is_object()) refuse("header \"" + name + "\" must be a {source,value} ref");
    std::string value = host.secret(item.value().dump());
    if (value.find_first_of("\r\n") != std::string::npos)
      refuse("the value of header \"" + name + "\" holds a line break");
    out.push_back(name + ": " + value);
  }
  return out;
}

void parse_stdio(const json& config, ChildSpec& child) {
  child.command = parse_command(config["command"]);
  if (config.contains("env")) {
    if (!config["env"].is_object()) refuse("\"env\" must be an object of strings");
    for (const auto& item : config["env"].items()) {
      if (!item.value().is_string()) refuse("\"env\" must be an object of strings");
      if (item.key().empty() || item.key().find('=') != std::string::npos)
        refuse("\"env\" has an invalid variable name");
      child.env[item.key()] = item.value().get<std::string>();
    }
  }
  if (config.contains("cwd")) {
    if (!config["cwd"].is_string()) refuse("\"cwd\" must be a string");
    child.cwd = config["cwd"].get<std::string>();
  }
}

}  // namespace

McpConfig parse_config(const std::string& config_json, const sdk::Host& host) {
  json config = json::parse(config_json.empty() ? "{}" : config_json, nullptr, false);
  if (!config.is_object()) refuse("not a JSON object");
  check_keys(config);
  McpConfig out;
  if (config.contains("name") && config["name"].is_string()) out.name = config["name"];
  if (out.name.empty()) out.name = "mcp";
  if (config.contains("timeout_ms") && config["timeout_ms"].is_number_integer() &&
      config["timeout_ms"].get<int64_t>() > 0)
    out.timeout = std::chrono::milliseconds(config["timeout_ms"].get<int64_t>());
  const bool has_url = config.contains("url"), has_command = config.contains("command");
  if (has_url == has_command) refuse("give exactly one of \"url\" (HTTP) or \"command\" (stdio)");
  if (has_url) {
    if (!config["url"].is_string()) refuse("\"url\" must be a string");
    out.url = config["url"].get<std::string>();
    if (out.url.rfind("http://", 0) != 0 && out.url.rfind("https://", 0) != 0)
      refuse("\"url\" must be http:// or https://");
    if (config.contains("env") || config.contains("cwd"))
      refuse("\"env\" and \"cwd\" go with \"command\", not \"url\"");
    if (config.contains("headers")) out.headers = parse_headers(config["headers"], host);
  } else {
    if (config.contains("headers")) refuse("\"headers\" go with \"url\", not \"command\"");
    parse_stdio(config, out.child);
  }
  return out;
}

}  // namespace agentrt::mcp
