#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;

[[noreturn]] void invalid(const std::string& what) {
  throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "request: " + what);
}

// Where an error is, built only when there is one.
std::string message_at(size_t index) {
  return "messages[" + std::to_string(index) + "]";
}

std::string part_at(size_t message, size_t part) {
  return message_at(message) + ".content[" + std::to_string(part) + "]";
}

ContentPart read_part(element value, size_t message, size_t index) {
  std::string_view type;
  if (text::member(value, "type").get(type) != SUCCESS)
    invalid(part_at(message, index) + " must be an object with a string 'type'");
  ContentPart part;
  if (type == "text") {
    if (text::member(value, "text").get(part.text) != SUCCESS)
      invalid(part_at(message, index) + ".text must be a string");
  } else if (type == "image_url") {
    part.kind = ContentPart::Kind::image;
    if (text::member(value, "url").get(part.url) != SUCCESS)
      invalid(part_at(message, index) + ".url must be a string");
  } else {
    invalid(part_at(message, index) + ".type '" + std::string(type) + "' is not text or image_url");
  }
  return part;
}

ChatMessage read_message(element value, size_t index) {
  if (!value.is_object()) invalid(message_at(index) + " must be an object");
  ChatMessage message;
  if (text::member(value, "role").get(message.role) != SUCCESS)
    invalid(message_at(index) + ".role must be a string");
  if (message.role != "user" && message.role != "assistant" && message.role != "system")
    invalid(message_at(index) + ".role '" + std::string(message.role) +
            "' is not system, user or assistant");
  const auto content = text::member(value, "content");
  std::string_view whole;
  array parts;
  if (content.get(whole) == SUCCESS) {
    message.parts.push_back(ContentPart{ContentPart::Kind::text, whole, {}});
  } else if (content.get(parts) == SUCCESS) {
    message.parts.reserve(parts.size());
    for (const element part : parts)
      message.parts.push_back(read_part(part, index, message.parts.size()));
  } else {
    invalid(message_at(index) + ".content must be an array of parts");
  }
  return message;
}

// Absent and null are none.
bool given(const simdjson::simdjson_result<element>& value) {
  return value.error() == SUCCESS && !value.value_unsafe().is_null();
}

}  // namespace

ChatRequest parse_chat_request(std::string_view request_json) {
  ChatRequest out;
  element request;
  if (out.reader->parse(request_json).get(request) != SUCCESS || !request.is_object())
    invalid("not a JSON object");
  std::string_view model;
  if (text::member(request, "model").get(model) != SUCCESS || model.empty())
    invalid("'model' must be a non-empty string");
  out.model = std::string(model);
  array messages;
  if (text::member(request, "messages").get(messages) != SUCCESS || messages.size() == 0)
    invalid("'messages' must be a non-empty array");
  out.messages.reserve(messages.size());
  for (const element message : messages)
    out.messages.push_back(read_message(message, out.messages.size()));
  const auto max_tokens = text::member(request, "max_tokens");
  if (given(max_tokens)) {
    int64_t max = 0;
    if (max_tokens.get(max) != SUCCESS || max <= 0)
      invalid("'max_tokens' must be a positive integer");
    out.max_tokens = max;
  }
  const auto temperature = text::member(request, "temperature");
  if (given(temperature)) {
    double number = 0;
    if (temperature.get(number) != SUCCESS) invalid("'temperature' must be a number");
    out.temperature = number;
  }
  return out;
}

size_t body_size_hint(const ChatRequest& chat) {
  constexpr size_t kAroundEachMessage = 32;  // {"content":[...],"role":"assistant"},
  constexpr size_t kAroundEachPart = 32;     // {"text":"...","type":"text"},
  size_t size = 256 + chat.model.size();
  for (const ChatMessage& message : chat.messages) {
    size += kAroundEachMessage;
    // Escapes may lengthen a text; the body grows past the hint then.
    for (const ContentPart& part : message.parts)
      size += kAroundEachPart + part.text.size() + part.url.size();
  }
  return size;
}

std::string joined_text(const ChatMessage& message, std::string_view separator) {
  std::string joined;
  bool first = true;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::text) continue;
    if (!first) joined += separator;
    first = false;
    joined += part.text;
  }
  return joined;
}

}  // namespace agentrt::providers
