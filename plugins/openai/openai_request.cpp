#include "openai_request.h"

#include "common/content_encoding.h"
#include "common/json_writer.h"

namespace agentrt::providers::openai {
namespace {

bool text_only(const ChatMessage& message) {
  for (const ContentPart& part : message.parts)
    if (part.kind != ContentPart::Kind::text) return false;
  return message.parts.size() <= 1;
}

// A lone text part goes as a plain string: every OpenAI-compatible server accepts
// that for every role, while some accept parts only for user messages.
void write_content(JsonWriter& out, const ChatMessage& message) {
  if (text_only(message)) {
    out.string(message.parts.empty() ? std::string_view() : message.parts[0].text);
    return;
  }
  out.begin_array();
  for (const ContentPart& part : message.parts) {
    out.begin_object();
    if (part.kind == ContentPart::Kind::text)
      out.key("text").string(part.text).key("type").string("text");
    else
      out.key("image_url")
          .begin_object()
          .key("url")
          .string(part.url)
          .end_object()
          .key("type")
          .string("image_url");
    out.end_object();
  }
  out.end_array();
}

}  // namespace

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat) {
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object();
  // max_tokens is deprecated and refused by the reasoning models.
  if (chat.max_tokens) out.key("max_completion_tokens").integer(*chat.max_tokens);
  out.key("messages").begin_array();
  for (const ChatMessage& message : chat.messages) {
    out.begin_object().key("content");
    write_content(out, message);
    out.key("role").string(message.role).end_object();
  }
  out.end_array();
  out.key("model").string(chat.model);
  out.key("stream").boolean(true);
  out.key("stream_options").begin_object().key("include_usage").boolean(true).end_object();
  if (chat.temperature) out.key("temperature").number(*chat.temperature);
  out.end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/chat/completions";
  request.headers = {"Content-Type: application/json", "Accept: text/event-stream",
                     kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = request_body(chat);
  return request;
}

}  // namespace agentrt::providers::openai
