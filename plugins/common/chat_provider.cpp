#include "common/chat_provider.h"

#include "common/curl_handles.h"

#include <ctime>

namespace agentrt::providers {
namespace {

// Overwrites a string that held the key before its memory goes back to the heap.
void wipe(std::string& s) {
  volatile char* p = s.data();
  for (size_t i = 0; i < s.size(); ++i) p[i] = 0;
  s.clear();
}

// The request's headers carry the key; wipe them however the call ends.
class HeaderWiper {
 public:
  explicit HeaderWiper(HttpRequest& request) : request_(request) {}
  ~HeaderWiper() {
    for (std::string& header : request_.headers) wipe(header);
  }
  HeaderWiper(const HeaderWiper&) = delete;
  HeaderWiper& operator=(const HeaderWiper&) = delete;

 private:
  HttpRequest& request_;
};

}  // namespace

ChatProvider::ChatProvider(const sdk::Host& host, std::string plugin, ProviderConfig config,
                           std::unique_ptr<VendorAdapter> adapter)
    : host_(host),
      plugin_(std::move(plugin)),
      config_(std::move(config)),
      adapter_(std::move(adapter)) {
  ensure_curl_initialised();
}

std::string ChatProvider::list_models() {
  return nlohmann::json{{"models", config_.models}}.dump();
}

std::string ChatProvider::resolve_key() const {
  if (config_.api_key_ref.empty()) return "";
  try {
    return host_.secret(config_.api_key_ref);
  } catch (const sdk::Error& e) {
    throw sdk::Error(e.code(), plugin_ + ": cannot resolve api_key_ref: " + e.what());
  }
}

void ChatProvider::complete(const std::string& request_json, sdk::Sink& sink) {
  ChatRequest chat = parse_chat_request(request_json);
  std::string key = resolve_key();
  try {
    stream(chat, key, sink);
  } catch (const sdk::Error& e) {
    // Last line of defence: whatever any layer put in a message, the key leaves
    // only as "[redacted]".
    std::string message = redact(e.what(), key);
    wipe(key);
    throw sdk::Error(e.code(), message, e.http_status(), e.retry_after_ms());
  }
  wipe(key);
}

void ChatProvider::stream(const ChatRequest& chat, const std::string& key,
                          sdk::Sink& sink) const {
  HttpRequest http = adapter_->build(chat, config_, key);
  HeaderWiper wiper(http);
  http.connect_timeout_ms = config_.connect_timeout_ms;
  http.stall_timeout_ms = config_.stall_timeout_ms;
  http.user_agent = "agentrt-" + plugin_ + "/1.0";

  DeltaEmitter out(sink);
  std::unique_ptr<StreamDecoder> decoder = adapter_->decoder(out);
  HttpResponse response = post_streaming(
      http, [&](std::string_view bytes) { decoder->feed(bytes); },
      [&] { return sink.cancelled(); });
  if (response.status < 200 || response.status >= 300)
    throw map_http_error(response, adapter_->parse_error(response.body), key, std::time(nullptr));
  decoder->end_of_stream();
}

}  // namespace agentrt::providers
