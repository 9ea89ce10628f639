#include "core/runs/run_request.h"

#include "core/domain/errors.h"
#include "core/domain/json_fields.h"

#include <cctype>
#include <string_view>

namespace agentrt::core {
namespace {

// Where a field is, for an error: built only when there is one (the checks below go to
// json_fields.h, with the name, only to throw its error).
std::string message_at(size_t message) {
  return "messages[" + std::to_string(message) + "]";
}

std::string part_at(size_t message, size_t part) {
  return message_at(message) + ".content[" + std::to_string(part) + "]";
}

// A member that must be a string; its error is json_fields.h's.
template <class Where>
const std::string& required(const nlohmann::json& object, const char* field, const Where& where) {
  const std::string* value = string_field(object, field);
  if (value == nullptr) required_string(object, field, where() + ".");  // throws
  return *value;
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

nlohmann::json parse_part(const nlohmann::json& part, size_t message, size_t index) {
  const auto where = [&] { return part_at(message, index); };
  if (!part.is_object()) require_object(part, "'" + where() + "'");
  const std::string& type = required(part, "type", where);
  nlohmann::json out = nlohmann::json::object();
  if (type == "text") {
    if (first_unknown_field(part, {"type", "text"}))
      reject_unknown_fields(part, {"type", "text"}, where() + ".");
    out["text"] = required(part, "text", where);
    out["type"] = "text";
    return out;
  }
  if (type == "image_url") {
    if (first_unknown_field(part, {"type", "url"}))
      reject_unknown_fields(part, {"type", "url"}, where() + ".");
    std::string url = required(part, "url", where);
    const bool known = lower_image_scheme(url);
    const bool http = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
    if (!known || (http ? !names_a_host(url) : !is_inline_image(url)))
      throw invalid("field '" + where() +
                    ".url' must be an http(s) URL with a host or a "
                    "data:image/<type>;base64,<data> URL");
    out["type"] = "image_url";
    out["url"] = url;
    return out;
  }
  throw invalid("field '" + where() + ".type' must be text or image_url");
}

StoredMessage parse_message(const nlohmann::json& message, size_t index) {
  const auto where = [&] { return message_at(index); };
  if (!message.is_object()) require_object(message, "'" + where() + "'");
  if (first_unknown_field(message, {"role", "content"}))
    reject_unknown_fields(message, {"role", "content"}, where() + ".");
  StoredMessage out;
  out.role = required(message, "role", where);
  if (out.role != "user" && out.role != "assistant" && out.role != "system")
    throw invalid("field '" + where() + ".role' must be user, assistant or system");
  auto content = message.find("content");
  if (content == message.end() || !content->is_array() || content->empty())
    throw invalid("field '" + where() + ".content' must be a non-empty array of content parts");
  out.content = nlohmann::json::array();
  for (size_t i = 0; i < content->size(); ++i)
    out.content.push_back(parse_part((*content)[i], index, i));
  return out;
}

}  // namespace

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

RunRequest parse_run_request(const nlohmann::json& body) {
  require_object(body);
  reject_unknown_fields(body, {"model", "messages", "actor", "session_id", "agent_id", "memory",
                               "if_busy", "max_tokens", "temperature"});
  RunRequest request;
  request.agent_id = optional_string(body, "agent_id");
  request.model = optional_string(body, "model").value_or("");
  if (request.model.empty() && !request.agent_id)
    throw invalid("field 'model' is required (or an agent_id whose agent has a model)");
  request.use_memory = optional_bool(body, "memory").value_or(true);
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array() || messages->empty())
    throw invalid("field 'messages' must be a non-empty array");
  for (size_t i = 0; i < messages->size(); ++i)
    request.messages.push_back(parse_message((*messages)[i], i));
  request.actor = optional_string(body, "actor");
  request.session_id = optional_string(body, "session_id");
  if (request.session_id && !valid_session_id(*request.session_id))
    throw invalid(
        "field 'session_id' must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', ':', '-', "
        "and not '.' or '..'");
  auto if_busy = optional_string(body, "if_busy");
  if (if_busy && *if_busy != "interrupt" && *if_busy != "reject")
    throw invalid("field 'if_busy' must be interrupt or reject");
  request.interrupt_if_busy = if_busy && *if_busy == "interrupt";
  request.max_tokens = optional_int(body, "max_tokens");
  if (request.max_tokens && (*request.max_tokens < 1 || *request.max_tokens > 10000000))
    throw invalid("field 'max_tokens' must be an integer from 1 to 10000000");
  auto temperature = body.find("temperature");
  if (temperature != body.end() && !temperature->is_null()) {
    if (!temperature->is_number() || *temperature < 0 || *temperature > 2)
      throw invalid("field 'temperature' must be a number from 0 to 2");
    request.temperature = temperature->get<double>();
  }
  return request;
}

void check_model_accepts(const RunRequest& request, const ModelInfo& model) {
  if (model.supports_vision) return;
  for (size_t i = 0; i < request.messages.size(); ++i) {
    // A message read as text (read_plain_run_request) has text parts only.
    if (!request.messages[i].content_text.empty()) continue;
    for (const auto& part : request.messages[i].content)
      if (part["type"] == "image_url")
        throw invalid("field 'messages[" + std::to_string(i) +
                      "].content' has an image_url part, but model '" + model.id +
                      "' does not support vision");
  }
}

}  // namespace agentrt::core
