#include "anthropic_request.h"

#include "common/content_encoding.h"
#include "common/data_url.h"
#include "common/json_writer.h"

#include <agentrt/plugin.hpp>

#include <string_view>
#include <vector>

namespace agentrt::providers::anthropic {
namespace {

void write_image_block(JsonWriter& out, std::string_view url) {
  out.begin_object().key("source").begin_object();
  if (std::optional<DataUrl> inline_image = parse_data_url(url))
    out.key("data")
        .string(inline_image->base64)
        .key("media_type")
        .string(inline_image->media_type)
        .key("type")
        .string("base64");
  else
    out.key("type").string("url").key("url").string(url);
  out.end_object().key("type").string("image").end_object();
}

void write_text_block(JsonWriter& out, std::string_view text) {
  out.begin_object().key("text").string(text).key("type").string("text").end_object();
}

// The API refuses empty text blocks, so they are left out.
void write_content_blocks(JsonWriter& out, const ChatMessage& message) {
  out.begin_array();
  for (const ContentPart& part : message.parts) {
    if (part.kind == ContentPart::Kind::image)
      write_image_block(out, part.url);
    else if (!part.text.empty())
      write_text_block(out, part.text);
  }
  out.end_array();
}

void write_message(JsonWriter& out, const ChatMessage& message) {
  out.begin_object().key("content");
  write_content_blocks(out, message);
  out.key("role").string(message.role).end_object();
}

// Every system message's text, in order; refused before anything is sent when a
// system message holds anything but text.
std::vector<std::string_view> system_texts(const ChatRequest& chat) {
  std::vector<std::string_view> texts;
  for (const ChatMessage& message : chat.messages) {
    if (message.role != "system") continue;
    for (const ContentPart& part : message.parts) {
      if (part.kind != ContentPart::Kind::text)
        throw sdk::Error(AGENTRT_ERR_REFUSED,
                         "request: anthropic takes only text in system messages");
      if (!part.text.empty()) texts.push_back(part.text);
    }
  }
  return texts;
}

// One text as a plain string, several as an array of text blocks so that nothing is
// merged that the engine kept apart.
void write_system(JsonWriter& out, const std::vector<std::string_view>& texts) {
  if (texts.empty()) return;
  out.key("system");
  if (texts.size() == 1) {
    out.string(texts.front());
    return;
  }
  out.begin_array();
  for (const std::string_view text : texts) write_text_block(out, text);
  out.end_array();
}

}  // namespace

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat) {
  const std::vector<std::string_view> system = system_texts(chat);
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object();
  out.key("max_tokens").integer(chat.max_tokens.value_or(kDefaultMaxTokens));
  out.key("messages").begin_array();
  for (const ChatMessage& message : chat.messages) {
    if (message.role == "system") continue;  // the API has no system role in messages
    write_message(out, message);
  }
  out.end_array();
  out.key("model").string(chat.model);
  out.key("stream").boolean(true);
  write_system(out, system);
  if (chat.temperature) out.key("temperature").number(*chat.temperature);
  out.end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/v1/messages";
  request.headers = {"content-type: application/json", "accept: text/event-stream",
                     "anthropic-version: 2023-06-01", kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("x-api-key: " + api_key);
  request.body = request_body(chat);
  return request;
}

}  // namespace agentrt::providers::anthropic
