#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

namespace agentrt::providers {
namespace {

using nlohmann::json;

[[noreturn]] void invalid(const std::string& what) {
  throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "request: " + what);
}

ContentPart parse_part(const json& part, const std::string& where) {
  if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
    invalid(where + " must be an object with a string 'type'");
  const std::string type = part["type"].get<std::string>();
  ContentPart out;
  if (type == "text") {
    if (!part.contains("text") || !part["text"].is_string())
      invalid(where + ".text must be a string");
    out.text = part["text"].get<std::string>();
  } else if (type == "image_url") {
    if (!part.contains("url") || !part["url"].is_string()) invalid(where + ".url must be a string");
    out.kind = ContentPart::Kind::image;
    out.url = part["url"].get<std::string>();
  } else {
    invalid(where + ".type '" + type + "' is not text or image_url");
  }
  return out;
}

ChatMessage parse_message(const json& message, const std::string& where) {
  if (!message.is_object()) invalid(where + " must be an object");
  ChatMessage out;
  const json& role = message.value("role", json());
  if (!role.is_string()) invalid(where + ".role must be a string");
  out.role = role.get<std::string>();
  if (out.role != "system" && out.role != "user" && out.role != "assistant")
    invalid(where + ".role '" + out.role + "' is not system, user or assistant");
  const json& content = message.value("content", json());
  if (content.is_string()) {
    out.parts.push_back(ContentPart{ContentPart::Kind::text, content.get<std::string>(), ""});
  } else if (content.is_array()) {
    for (size_t i = 0; i < content.size(); ++i)
      out.parts.push_back(parse_part(content[i], where + ".content[" + std::to_string(i) + "]"));
  } else {
    invalid(where + ".content must be an array of parts");
  }
  return out;
}

}  // namespace

ChatRequest parse_chat_request(const std::string& request_json) {
  json request = json::parse(request_json, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) invalid("not a JSON object");
  ChatRequest out;
  const json& model = request.value("model", json());
  if (!model.is_string() || model.get<std::string>().empty())
    invalid("'model' must be a non-empty string");
  out.model = model.get<std::string>();
  const json& messages = request.value("messages", json());
  if (!messages.is_array() || messages.empty()) invalid("'messages' must be a non-empty array");
  for (size_t i = 0; i < messages.size(); ++i)
    out.messages.push_back(parse_message(messages[i], "messages[" + std::to_string(i) + "]"));
  if (request.contains("max_tokens") && !request["max_tokens"].is_null()) {
    const json& max = request["max_tokens"];
    if (!max.is_number_integer() || max.get<int64_t>() <= 0)
      invalid("'max_tokens' must be a positive integer");
    out.max_tokens = max.get<int64_t>();
  }
  if (request.contains("temperature") && !request["temperature"].is_null()) {
    if (!request["temperature"].is_number()) invalid("'temperature' must be a number");
    out.temperature = request["temperature"].get<double>();
  }
  return out;
}

std::string joined_text(const ChatMessage& message, const std::string& separator) {
  std::string text;
  bool first = true;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::text) continue;
    if (!first) text += separator;
    text += part.text;
    first = false;
  }
  return text;
}

}  // namespace agentrt::providers
