#include "mcp/result_text.h"

#include <agentrt/plugin.hpp>

namespace agentrt::mcp {
namespace {

using nlohmann::json;

std::string str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Binary content is never handed to the model as base64: it would eat its context and
// means nothing as text.
std::string summarise(const json& item) {
  const std::string type = str(item, "type");
  if (type == "image" || type == "audio")
    return "[" + type + " " + str(item, "mimeType") + ", " +
           std::to_string(str(item, "data").size()) + " bytes base64]";
  if (type == "resource") {
    const json resource = item.value("resource", json::object());
    if (!resource.is_object()) return "[resource]";
    const std::string text = str(resource, "text");
    return "[resource " + str(resource, "uri") + "]" + (text.empty() ? "" : "\n" + text);
  }
  if (type == "resource_link") return "[resource link " + str(item, "uri") + "]";
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

}  // namespace

std::string cut_output(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  const std::string note = "\n[output cut at " + std::to_string(max_bytes) + " bytes]";
  size_t keep = max_bytes > note.size() ? max_bytes - note.size() : 0;
  // Back off continuation bytes so that no UTF-8 character is split.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  text.resize(keep);
  return max_bytes > note.size() ? text + note : note.substr(0, max_bytes);
}

ResultText result_text(const json& result, size_t max_output_bytes) {
  if (!result.is_object())
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "mcp server sent a malformed tools/call result");
  ResultText out;
  out.is_error = result.contains("isError") && result["isError"] == true;
  const json* content = result.contains("content") ? &result["content"] : nullptr;
  if (content && content->is_array()) {
    bool first = true;
    for (const json& item : *content) {
      if (!item.is_object()) continue;
      if (!first) out.text += "\n";
      first = false;
      out.text += str(item, "type") == "text" ? str(item, "text") : summarise(item);
      if (out.text.size() > max_output_bytes + 64) break;  // the rest would be cut anyway
    }
  } else if (result.contains("structuredContent")) {
    out.text = result["structuredContent"].dump(-1, ' ', false, json::error_handler_t::replace);
  } else {
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "mcp server sent a tools/call result without content");
  }
  out.text = cut_output(std::move(out.text), max_output_bytes);
  return out;
}

}  // namespace agentrt::mcp
