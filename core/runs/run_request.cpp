#include "core/runs/run_request.h"

#include "core/domain/errors.h"
#include "core/domain/json_body.h"
#include "core/domain/json_text.h"
#include "core/runs/context_window.h"
#include "core/runs/run_request_fields.h"
#include "core/runs/tool_request.h"
#include "text/json_reader.h"

#include <cctype>

namespace agentrt::core {
namespace {

// What the reader refuses as too deep is what every body is refused for.
static_assert(text::kMaxDepth == kMaxJsonDepth);

using simdjson::dom::array;
using simdjson::dom::element;

// Where a field is, for an error: built only when there is one.
std::string message_at(size_t message) {
  return "messages[" + std::to_string(message) + "]";
}

std::string part_at(size_t message, size_t part) {
  return message_at(message) + ".content[" + std::to_string(part) + "]";
}

// data:image/<subtype>[;parameter...];base64,<base64>: what every vendor takes inline.
// A data URL without ";base64" (percent-encoded bytes) is valid elsewhere, but no
// provider can send it, and it was once refused only by the provider, after its
// question was stored.
bool is_inline_image(std::string_view url) {
  constexpr std::string_view kScheme = "data:image/", kMarker = ";base64,";
  const size_t marker = url.find(kMarker);
  if (url.rfind(kScheme, 0) != 0 || marker == std::string_view::npos) return false;
  const std::string_view subtype = url.substr(kScheme.size(), marker - kScheme.size());
  const std::string_view data = url.substr(marker + kMarker.size());
  if (subtype.empty() || subtype.front() == ';' || data.empty()) return false;
  for (const char c : data)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && c != '=')
      return false;
  return true;
}

// A scheme is case-insensitive (RFC 3986 3.1): HTTPS://x is https://x, written in the
// lower case every provider reads. Returns false when `url` is none of the three.
bool lower_image_scheme(std::string& url) {
  for (const std::string_view scheme : {"https:", "http:", "data:"}) {
    if (url.size() < scheme.size()) continue;
    bool same = true;
    for (size_t i = 0; i < scheme.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(url[i])) == scheme[i];
    if (!same) continue;
    url.replace(0, scheme.size(), scheme);
    return true;
  }
  return false;
}

// An http(s) URL names a host: "http://" or "https:///x" fetch nothing.
bool names_a_host(std::string_view url) {
  const size_t slashes = url.find("://");
  if (slashes == std::string_view::npos) return false;
  const size_t host = slashes + 3;
  return host < url.size() && url[host] != '/' && url[host] != '?' && url[host] != '#';
}

std::string image_url(const Fields& part, const std::string& where) {
  std::optional<std::string> url = sendable_image_url(std::string(part.required_string("url")));
  if (!url)
    throw invalid("field '" + where +
                  ".url' must be an http(s) URL with a host or a "
                  "data:image/<type>;base64,<data> URL");
  return std::move(*url);
}

// One part of a `role` message, appended to the content's text in the store's form,
// and to its estimate.
void read_part(element value, size_t message, size_t index, std::string_view role,
               std::string& content, ContentEstimate& estimate) {
  const std::string where = part_at(message, index);
  const Fields part = Fields::of(value, "'" + where + "'", where + ".");
  const std::string_view type = part.required_string("type");
  if (read_tool_part(type, part, where, role, content, estimate)) return;
  if (role == "tool")
    throw invalid("field '" + where + ".type' must be tool_result or tool_approval");
  if (type == "text") {
    part.reject_unknown({"type", "text"});
    const std::string_view text = part.required_string("text");
    content += R"({"text":)";
    append_json_string(content, text);
    content += R"(,"type":"text"})";
    estimate.add_text(text);
    return;
  }
  if (type == "image_url") {
    part.reject_unknown({"type", "url"});
    content += R"({"type":"image_url","url":)";
    append_json_string(content, image_url(part, where));
    content += '}';
    estimate.add_other(/*image=*/true);
    return;
  }
  throw invalid("field '" + where + ".type' must be text or image_url");
}

StoredMessage read_message(element value, size_t index) {
  const std::string where = message_at(index);
  const Fields message = Fields::of(value, "'" + where + "'", where + ".");
  message.reject_unknown({"role", "content"});
  StoredMessage out;
  out.role = message.required_string("role");
  if (out.role != "user" && out.role != "assistant" && out.role != "system" && out.role != "tool")
    throw invalid("field '" + where + ".role' must be user, assistant, system or tool");
  std::string content = "[";
  ContentEstimate estimate;
  // A string is one text part: what every OpenAI-shaped client sends.
  std::string_view text;
  if (out.role != "tool" && message.find("content").get(text) == simdjson::SUCCESS) {
    content += R"({"text":)";
    append_json_string(content, text);
    content += R"(,"type":"text"}])";
    estimate.add_text(text);
    out.content_text = std::move(content);
    out.tokens = estimate.tokens();
    return out;
  }
  array parts;
  if (message.find("content").get(parts) != simdjson::SUCCESS || parts.size() == 0)
    throw invalid("field '" + where +
                  ".content' must be a string or a non-empty array of content " + "parts" +
                  (out.role == "tool" ? std::string(" (for a tool message: an array)") : ""));
  size_t i = 0;
  for (const element part : parts) {
    if (i > 0) content += ',';
    read_part(part, index, i++, out.role, content, estimate);
  }
  content += ']';
  out.content_text = std::move(content);
  out.tokens = estimate.tokens();
  out.has_image = estimate.has_image();
  out.has_tool_parts = estimate.has_tool_parts();
  return out;
}

std::vector<StoredMessage> read_messages(const Fields& body) {
  array messages;
  if (body.find("messages").get(messages) != simdjson::SUCCESS || messages.size() == 0)
    throw invalid("field 'messages' must be a non-empty array");
  std::vector<StoredMessage> out;
  out.reserve(messages.size());
  for (const element message : messages) out.push_back(read_message(message, out.size()));
  check_tool_message_order(out);
  return out;
}

std::optional<double> read_temperature(const Fields& body) {
  const std::optional<element> value = body.present("temperature");
  if (!value) return std::nullopt;
  double number = 0;
  if (value->get(number) != simdjson::SUCCESS || number < 0 || number > 2)
    throw invalid("field 'temperature' must be a number from 0 to 2");
  return number;
}

RunRequest read_request(element root) {
  const Fields body = Fields::of(root, "request body", "");
  body.reject_unknown({"model", "messages", "actor", "session_id", "agent_id", "memory", "if_busy",
                       "max_tokens", "temperature", "tools", "tool_choice", "max_steps"});
  RunRequest request;
  request.agent_id = body.optional_string("agent_id");
  request.model = body.optional_string("model").value_or("");
  if (request.model.empty() && !request.agent_id)
    throw invalid("field 'model' is required (or an agent_id whose agent has a model)");
  request.use_memory = body.optional_bool("memory").value_or(true);
  request.messages = read_messages(body);
  request.actor = body.optional_string("actor");
  request.session_id = body.optional_string("session_id");
  if (request.session_id && !valid_session_id(*request.session_id))
    throw invalid(
        "field 'session_id' must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', ':', '-', "
        "and not '.' or '..'");
  const std::optional<std::string> if_busy = body.optional_string("if_busy");
  if (if_busy && *if_busy != "interrupt" && *if_busy != "reject")
    throw invalid("field 'if_busy' must be interrupt or reject");
  request.interrupt_if_busy = if_busy && *if_busy == "interrupt";
  request.max_tokens = body.optional_int("max_tokens");
  if (request.max_tokens && (*request.max_tokens < 1 || *request.max_tokens > 10000000))
    throw invalid("field 'max_tokens' must be an integer from 1 to 10000000");
  request.temperature = read_temperature(body);
  if (const std::optional<element> tools = body.present("tools"))
    request.tools = read_tools(*tools, "tools");
  if (const std::optional<element> choice = body.present("tool_choice"))
    request.tool_choice = read_tool_choice(*choice);
  request.max_steps = read_max_steps(body, "max_steps");
  return request;
}

}  // namespace

std::optional<std::string> sendable_image_url(std::string url) {
  const bool known = lower_image_scheme(url);
  const bool http = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
  if (!known || (http ? !names_a_host(url) : !is_inline_image(url))) return std::nullopt;
  return url;
}

bool valid_session_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  // Clients resolve them away as dot-segments of a path (RFC 3986 5.2.4): such a session's
  // routes could be reached only by escaping the dots.
  if (id == "." || id == "..") return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

RunRequest parse_run_request(std::string_view body) {
  text::JsonReader reader;
  element root;
  const simdjson::error_code error = reader.parse(body).get(root);
  if (error != simdjson::SUCCESS || repeats_a_key(root)) refuse_body(body, error);
  return read_request(root);
}

void check_model_accepts(const RunRequest& request, const ModelInfo& model,
                         const std::vector<ToolSpec>& tools) {
  if (!tools.empty() && !model.supports_tools)
    throw invalid("field 'tools': model '" + model.id + "' does not support tools");
  if (model.supports_vision) return;
  for (size_t i = 0; i < request.messages.size(); ++i)
    if (request.messages[i].has_image)
      throw invalid("field 'messages[" + std::to_string(i) +
                    "].content' has an image_url part, but model '" + model.id +
                    "' does not support vision");
}

}  // namespace agentrt::core
