#include "ollama_request.h"

#include "common/data_url.h"
#include "common/json_writer.h"
#include "common/text_messages.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers::ollama {
namespace {

bool has_images(const ChatMessage& message) {
  for (const ContentPart& part : message.parts)
    if (part.kind == ContentPart::Kind::image) return true;
  return false;
}

// A message with images, or of another role than the three.
void write_message(JsonWriter& out, const ChatMessage& message) {
  const EscapedText text = joined_text(message, "\n");
  out.begin_object().key("content").escaped(text.json());
  bool images = false;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::image) continue;
    std::optional<DataUrl> inline_image = parse_data_url(part.url);
    // Ollama fetches nothing itself: it takes image bytes only.
    if (!inline_image)
      throw sdk::Error(AGENTRT_ERR_REFUSED,
                       "request: ollama takes images only as data: URLs, not links");
    if (!images) out.key("images").begin_array();
    images = true;
    out.string(inline_image->base64);
  }
  if (images) out.end_array();
  out.key("role").string(message.role).end_object();
}

}  // namespace

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat) {
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object().key("messages").begin_array();
  write_messages(
      out, chat.messages, [](const ChatMessage& message) { return !has_images(message); },
      [](const ChatMessage& message, const auto& write) {
        write(joined_text(message, "\n").json());
      },
      [&](const ChatMessage& message) { write_message(out, message); });
  out.end_array();
  out.key("model").string(chat.model);
  if (chat.max_tokens || chat.temperature) {
    out.key("options").begin_object();
    if (chat.max_tokens) out.key("num_predict").integer(*chat.max_tokens);
    if (chat.temperature) out.key("temperature").number(*chat.temperature);
    out.end_object();
  }
  out.key("stream").boolean(true).end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/api/chat";
  request.headers = {"Content-Type: application/json", "Accept: application/x-ndjson"};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = request_body(chat);
  return request;
}

}  // namespace agentrt::providers::ollama
