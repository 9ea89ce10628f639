#include "anthropic_request.h"

#include "common/data_url.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers::anthropic {
namespace {

using nlohmann::json;

json image_block(const std::string& url) {
  if (std::optional<DataUrl> inline_image = parse_data_url(url))
    return {{"type", "image"},
            {"source",
             {{"type", "base64"},
              {"media_type", inline_image->media_type},
              {"data", inline_image->base64}}}};
  return {{"type", "image"}, {"source", {{"type", "url"}, {"url", url}}}};
}

// The API refuses empty text blocks, so they are left out.
json content_blocks(const ChatMessage& message) {
  json blocks = json::array();
  for (const ContentPart& part : message.parts) {
    if (part.kind == ContentPart::Kind::image)
      blocks.push_back(image_block(part.url));
    else if (!part.text.empty())
      blocks.push_back({{"type", "text"}, {"text", part.text}});
  }
  return blocks;
}

// Every system message's text, in order: one block as a plain string, several as an
// array of text blocks so that nothing is merged that the engine kept apart.
json system_field(const ChatRequest& chat) {
  json blocks = json::array();
  for (const ChatMessage& message : chat.messages) {
    if (message.role != "system") continue;
    for (const ContentPart& part : message.parts) {
      if (part.kind != ContentPart::Kind::text)
        throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT,
                         "request: anthropic takes only text in system messages");
      if (!part.text.empty()) blocks.push_back({{"type", "text"}, {"text", part.text}});
    }
  }
  if (blocks.size() == 1) return blocks[0]["text"];
  return blocks;
}

}  // namespace

json request_body(const ChatRequest& chat) {
  json messages = json::array();
  for (const ChatMessage& message : chat.messages) {
    if (message.role == "system") continue;  // the API has no system role in messages
    messages.push_back({{"role", message.role}, {"content", content_blocks(message)}});
  }
  json body = {{"model", chat.model},
               {"max_tokens", chat.max_tokens.value_or(kDefaultMaxTokens)},
               {"messages", std::move(messages)},
               {"stream", true}};
  json system = system_field(chat);
  if (!system.empty()) body["system"] = std::move(system);
  if (chat.temperature) body["temperature"] = *chat.temperature;
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/v1/messages";
  request.headers = {"content-type: application/json", "accept: text/event-stream",
                     "anthropic-version: 2023-06-01"};
  if (!api_key.empty()) request.headers.push_back("x-api-key: " + api_key);
  request.body = request_body(chat).dump();
  return request;
}

}  // namespace agentrt::providers::anthropic
