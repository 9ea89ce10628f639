#include "openai_request.h"

namespace agentrt::providers::openai {
namespace {

using nlohmann::json;

bool text_only(const ChatMessage& message) {
  for (const ContentPart& part : message.parts)
    if (part.kind != ContentPart::Kind::text) return false;
  return message.parts.size() <= 1;
}

// A lone text part goes as a plain string: every OpenAI-compatible server accepts
// that for every role, while some accept parts only for user messages.
json content(const ChatMessage& message) {
  if (text_only(message)) return joined_text(message, "");
  json parts = json::array();
  for (const ContentPart& part : message.parts) {
    json& entry = parts.emplace_back(json::object());
    if (part.kind == ContentPart::Kind::text) {
      entry["type"] = "text";
      entry["text"] = part.text;
    } else {
      entry["type"] = "image_url";
      entry["image_url"]["url"] = part.url;
    }
  }
  return parts;
}

}  // namespace

json request_body(const ChatRequest& chat) {
  // Built member by member: an initializer list copies every value it is given, and
  // the conversation is most of the request.
  json body = json::object();
  json& messages = body["messages"] = json::array();
  for (const ChatMessage& message : chat.messages) {
    json& entry = messages.emplace_back(json::object());
    entry["role"] = message.role;
    entry["content"] = content(message);
  }
  body["model"] = chat.model;
  body["stream"] = true;
  body["stream_options"]["include_usage"] = true;
  // max_tokens is deprecated and refused by the reasoning models.
  if (chat.max_tokens) body["max_completion_tokens"] = *chat.max_tokens;
  if (chat.temperature) body["temperature"] = *chat.temperature;
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/chat/completions";
  request.headers = {"Content-Type: application/json", "Accept: text/event-stream"};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = request_body(chat).dump();
  return request;
}

}  // namespace agentrt::providers::openai
