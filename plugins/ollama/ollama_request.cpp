#include "ollama_request.h"

#include "common/content_encoding.h"
#include "common/data_url.h"
#include "common/json_writer.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers::ollama {
namespace {

// Ollama takes one text a message, and images beside it.
void write_message(JsonWriter& out, const ChatMessage& message) {
  out.begin_object().key("content").string(joined_text(message, "\n"));
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

// The configured context window of `model`, none for a model the config does not list.
std::optional<int64_t> context_window(const ProviderConfig& config, const std::string& model) {
  for (const nlohmann::json& entry : config.models) {
    if (entry.value("id", "") != model) continue;
    auto window = entry.find("context_window");
    if (window != entry.end() && window->is_number_integer() && window->get<int64_t>() > 0)
      return window->get<int64_t>();
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::string request_body(const ChatRequest& chat) {
  return request_body(chat, std::nullopt);
}

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat, std::optional<int64_t> num_ctx) {
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object().key("messages").begin_array();
  for (const ChatMessage& message : chat.messages) write_message(out, message);
  out.end_array();
  out.key("model").string(chat.model);
  if (chat.max_tokens || chat.temperature || num_ctx) {
    out.key("options").begin_object();
    if (num_ctx) out.key("num_ctx").integer(*num_ctx);
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
  request.headers = {"Content-Type: application/json", "Accept: application/x-ndjson",
                     kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  // Ollama cuts a prompt longer than its own default window (2,048 or 4,096 tokens,
  // by version) from the front without a word, system message first; agentd fills the
  // window the config declares, so that is the window it asks for.
  request.body = request_body(chat, context_window(config, chat.model));
  return request;
}

}  // namespace agentrt::providers::ollama
