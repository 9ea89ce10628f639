#include "common/chat_request.h"

#include <algorithm>

#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

namespace agentrt::providers {
namespace {

using nlohmann::json;

[[noreturn]] void invalid(const std::string& what) {
  throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "request: " + what);
}

// A member of `object`, or null when it has none. json::value() would return a copy:
// for "messages" a copy of the whole conversation on every call.
const json* member(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool is_string(const json* value) {
  return value != nullptr && value->is_string();
}

// Where an error is, built only when there is one.
std::string message_at(size_t index) {
  return "messages[" + std::to_string(index) + "]";
}

std::string part_at(size_t message, size_t part) {
  return message_at(message) + ".content[" + std::to_string(part) + "]";
}

void parse_part(const json& part, size_t message, size_t index, ChatRequest& out) {
  const json* type = part.is_object() ? member(part, "type") : nullptr;
  if (!is_string(type))
    invalid(part_at(message, index) + " must be an object with a string 'type'");
  const std::string& kind = type->get_ref<const std::string&>();
  if (kind == "text") {
    const json* text = member(part, "text");
    if (!is_string(text)) invalid(part_at(message, index) + ".text must be a string");
    out.add_part().text = EscapedText::of(text->get_ref<const std::string&>());
  } else if (kind == "image_url") {
    const json* url = member(part, "url");
    if (!is_string(url)) invalid(part_at(message, index) + ".url must be a string");
    ContentPart& image = out.add_part();
    image.kind = ContentPart::Kind::image;
    image.url = url->get<std::string>();
  } else {
    invalid(part_at(message, index) + ".type '" + kind + "' is not text or image_url");
  }
}

void parse_message(const json& message, size_t index, ChatRequest& out) {
  if (!message.is_object()) invalid(message_at(index) + " must be an object");
  const json* role = member(message, "role");
  if (!is_string(role)) invalid(message_at(index) + ".role must be a string");
  const std::string& name = role->get_ref<const std::string&>();
  const std::string_view known = known_role(name);
  if (known.empty())
    invalid(message_at(index) + ".role '" + name + "' is not system, user or assistant");
  out.messages.emplace_back().role = known;
  const json* content = member(message, "content");
  if (is_string(content)) {
    out.add_part().text = EscapedText::of(content->get_ref<const std::string&>());
  } else if (content != nullptr && content->is_array()) {
    for (size_t i = 0; i < content->size(); ++i) parse_part((*content)[i], index, i, out);
  } else {
    invalid(message_at(index) + ".content must be an array of parts");
  }
}

}  // namespace

ChatRequest parse_chat_request(std::string_view request_json) {
  if (auto scanned = scan_chat_request(request_json)) return std::move(*scanned);
  return parse_chat_request_document(request_json);
}

ChatRequest parse_chat_request_document(std::string_view request_json) {
  const json request = json::parse(request_json, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) invalid("not a JSON object");
  ChatRequest out;
  const json* model = member(request, "model");
  if (!is_string(model) || model->get_ref<const std::string&>().empty())
    invalid("'model' must be a non-empty string");
  out.model = model->get<std::string>();
  const json* messages = member(request, "messages");
  if (messages == nullptr || !messages->is_array() || messages->empty())
    invalid("'messages' must be a non-empty array");
  out.messages.reserve(messages->size());
  for (size_t i = 0; i < messages->size(); ++i) parse_message((*messages)[i], i, out);
  const json* max = member(request, "max_tokens");
  if (max != nullptr && !max->is_null()) {
    if (!max->is_number_integer() || max->get<int64_t>() <= 0)
      invalid("'max_tokens' must be a positive integer");
    out.max_tokens = max->get<int64_t>();
  }
  const json* temperature = member(request, "temperature");
  if (temperature != nullptr && !temperature->is_null()) {
    if (!temperature->is_number()) invalid("'temperature' must be a number");
    out.temperature = temperature->get<double>();
  }
  out.seal();
  return out;
}

// Grown by doubling instead, a long session's 580 parts were moved eleven times over: a
// fifth of reading a request of short messages. A part or a message takes at least 26
// bytes of JSON ({"text":"","type":"text"}, and a comma), so this is what the request
// can hold, up to a bound that keeps the room below 100 KB; a longer request grows past
// it once or twice.
void ChatRequest::reserve_for(size_t request_bytes) {
  constexpr size_t kSmallestItem = 26;
  constexpr size_t kMostReserved = 1024;
  const size_t most = std::min(request_bytes / kSmallestItem + 1, kMostReserved);
  messages.reserve(most);
  parts_.reserve(most);
}

ContentPart& ChatRequest::add_part() {
  ContentPart& part = parts_.emplace_back();
  ++messages.back().parts.size_;  // after it is in, so the count never passes the parts
  return part;
}

void ChatRequest::drop_last_parts() {
  PartsView& last = messages.back().parts;
  parts_.resize(parts_.size() - last.size_);
  last.size_ = 0;
}

void ChatRequest::seal() {
  const ContentPart* next = parts_.data();
  for (ChatMessage& message : messages) {
    message.parts.data_ = next;
    next += message.parts.size_;
  }
}

size_t body_size_hint(const ChatRequest& chat) {
  constexpr size_t kAroundEachMessage = 32;  // {"content":[...],"role":"assistant"},
  constexpr size_t kAroundEachPart = 32;     // {"text":"...","type":"text"},
  size_t size = 256 + chat.model.size();
  for (const ChatMessage& message : chat.messages) {
    size += kAroundEachMessage;
    for (const ContentPart& part : message.parts)
      size += kAroundEachPart + part.text.json().size() + part.url.size();
  }
  return size;
}

std::string_view known_role(std::string_view role) {
  for (std::string_view known : {"user", "assistant", "system"})
    if (role == known) return known;
  return {};
}

TextMessageEnds text_message_ends(std::string_view role) {
  if (role == "user") return {R"(","role":"user"})", R"(","role":"user"},{"content":")"};
  if (role == "assistant")
    return {R"(","role":"assistant"})", R"(","role":"assistant"},{"content":")"};
  if (role == "system") return {R"(","role":"system"})", R"(","role":"system"},{"content":")"};
  return {};
}

EscapedText joined_text(const ChatMessage& message, std::string_view separator) {
  const ContentPart* only = nullptr;
  size_t texts = 0;
  for (const ContentPart& part : message.parts)
    if (part.kind == ContentPart::Kind::text && texts++ == 0) only = &part;
  if (texts == 1) return only->text;
  std::string joined;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::text) continue;
    if (&part != only) append_escaped(joined, separator);
    joined += part.text.json();
  }
  return EscapedText::owning(std::move(joined));
}

}  // namespace agentrt::providers
