#include "core/tools/tool_server_request.h"

#include "core/domain/json_fields.h"
#include "core/domain/secret_ref.h"
#include "core/runs/tool_spec.h"

#include <cctype>
#include <cstring>
#include <set>

namespace agentrt::core {
namespace {

using nlohmann::json;

// A header name is an HTTP token (RFC 9110, 5.6.2).
bool header_token(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("!#$%&'*+-.^_`|~", c))
      return false;
  return true;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The MCP client sends these itself on every request; a second copy from the entry
// would break the protocol, not configure it.
bool protocol_header(const std::string& name) {
  static const std::set<std::string> own = {
      "accept",         "content-type", "content-length",    "host",
      "mcp-session-id", "connection",   "transfer-encoding", "mcp-protocol-version"};
  return own.count(lower(name)) > 0;
}

json parse_headers(const json& headers, const std::string& prefix) {
  require_object(headers, "field '" + prefix + "headers'");
  json out = json::object();
  std::set<std::string> seen;
  for (const auto& [name, ref] : headers.items()) {
    const std::string field = prefix + "headers." + name;
    if (!header_token(name))
      throw invalid("field '" + field + "' does not name an HTTP header (A-Z a-z 0-9 and " +
                    "!#$%&'*+-.^_`|~ only)");
    if (protocol_header(name))
      throw invalid("field '" + field + "' names a header the MCP client sets itself");
    if (!seen.insert(lower(name)).second)
      throw invalid("field '" + field + "' repeats a header (names are case-insensitive)");
    out[name] = parse_secret_ref(ref, field);
  }
  return out;
}

std::string parse_url(const json& body, const std::string& prefix) {
  std::string url = required_string(body, "url", prefix);
  const size_t scheme = url.rfind("https://", 0) == 0 ? 8 : url.rfind("http://", 0) == 0 ? 7 : 0;
  if (scheme == 0 || url.size() == scheme || std::strchr("/?#", url[scheme]))
    throw invalid("field '" + prefix + "url' must be an http:// or https:// URL with a host");
  for (const char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f')
      throw invalid("field '" + prefix + "url' must not hold blanks or control characters");
  if (url_has_user_info(url))
    throw invalid("field '" + prefix +
                  "url' must not hold credentials (user:password@); give them as headers, "
                  "whose values are references that are never shown");
  return url;
}

void refuse_process_fields(const json& body, const std::string& prefix) {
  for (const char* field : {"command", "env", "cwd"})
    if (body.contains(field))
      throw invalid("field '" + prefix + field +
                    "' is refused: the API never starts a process; a tool server that runs a "
                    "command (MCP over stdio) goes in the config file's tool_servers");
}

}  // namespace

ToolServerConfig parse_tool_server_request(const json& body, size_t index) {
  const std::string prefix = "servers[" + std::to_string(index) + "].";
  require_object(body, "'servers[" + std::to_string(index) + "]'");
  refuse_process_fields(body, prefix);
  reject_unknown_fields(body, {"name", "type", "url", "headers", "require_approval", "timeout_ms"},
                        prefix);
  ToolServerConfig config;
  config.name = required_string(body, "name", prefix);
  if (!valid_tool_name(config.name))
    throw invalid("field '" + prefix +
                  "name' must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '-'");
  config.type = required_string(body, "type", prefix);
  if (config.type != "mcp") throw invalid("field '" + prefix + "type' must be \"mcp\"");
  const std::string url = parse_url(body, prefix);
  config.require_approval = optional_string(body, "require_approval", prefix).value_or("never");
  if (config.require_approval != "always" && config.require_approval != "never")
    throw invalid("field '" + prefix + "require_approval' must be \"always\" or \"never\"");
  const auto timeout = optional_int(body, "timeout_ms", prefix);
  if (timeout && (*timeout < kToolTimeoutMinMs || *timeout > kToolTimeoutMaxMs))
    throw invalid("field '" + prefix + "timeout_ms' must be from " +
                  std::to_string(kToolTimeoutMinMs) + " to " + std::to_string(kToolTimeoutMaxMs));
  if (timeout) config.timeout_ms = static_cast<uint64_t>(*timeout);
  config.entry = {{"name", config.name},
                  {"type", config.type},
                  {"url", url},
                  {"require_approval", config.require_approval},
                  {"timeout_ms", config.timeout_ms}};
  if (auto headers = body.find("headers"); headers != body.end() && !headers->is_null())
    config.entry["headers"] = parse_headers(*headers, prefix);
  return config;
}

ToolServerConfig stored_tool_server(const std::string& name, const json& entry) {
  ToolServerConfig config;
  config.name = name;
  config.type = entry.value("type", "mcp");
  config.require_approval = entry.value("require_approval", "never");
  config.timeout_ms = entry.value("timeout_ms", config.timeout_ms);
  config.entry = entry;
  return config;
}

}  // namespace agentrt::core
