#include "ollama_request.h"

#include "common/data_url.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers::ollama {
namespace {

using nlohmann::json;

json message_json(const ChatMessage& message) {
  json out = {{"role", message.role}, {"content", joined_text(message, "\n")}};
  json images = json::array();
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::image) continue;
    std::optional<DataUrl> inline_image = parse_data_url(part.url);
    // Ollama fetches nothing itself: it takes image bytes only.
    if (!inline_image)
      throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT,
                       "request: ollama takes images only as data: URLs, not links");
    images.push_back(inline_image->base64);
  }
  if (!images.empty()) out["images"] = std::move(images);
  return out;
}

}  // namespace

json request_body(const ChatRequest& chat) {
  json messages = json::array();
  for (const ChatMessage& message : chat.messages) messages.push_back(message_json(message));
  json body = {{"model", chat.model}, {"messages", std::move(messages)}, {"stream", true}};
  json options = json::object();
  if (chat.max_tokens) options["num_predict"] = *chat.max_tokens;
  if (chat.temperature) options["temperature"] = *chat.temperature;
  if (!options.empty()) body["options"] = std::move(options);
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/api/chat";
  request.headers = {"Content-Type: application/json", "Accept: application/x-ndjson"};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = request_body(chat).dump();
  return request;
}

}  // namespace agentrt::providers::ollama
