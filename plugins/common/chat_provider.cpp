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

// Wipes what it watches when the scope ends, however it ends (the key, and the
// request headers that carry it).
class WipeOnExit {
 public:
  explicit WipeOnExit(std::string& one) : one_(&one) {}
  explicit WipeOnExit(std::vector<std::string>& many) : many_(&many) {}
  ~WipeOnExit() {
    if (one_) wipe(*one_);
    if (many_)
      for (std::string& s : *many_) wipe(s);
  }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  std::string* one_ = nullptr;
  std::vector<std::string>* many_ = nullptr;
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
  WipeOnExit wipe_key(key);
  try {
    stream(chat, key, sink);
  } catch (const sdk::Error& e) {
    // Last line of defence: whatever any layer put in a message, the key leaves
    // only as "[redacted]".
    throw sdk::Error(e.code(), redact(e.what(), key), e.http_status(), e.retry_after_ms());
  }
}

void ChatProvider::stream(const ChatRequest& chat, const std::string& key, sdk::Sink& sink) const {
  HttpRequest http = adapter_->build(chat, config_, key);
  WipeOnExit wipe_headers(http.headers);
  http.connect_timeout_ms = config_.connect_timeout_ms;
  http.stall_timeout_ms = config_.stall_timeout_ms;
  http.user_agent = "agentrt-" + plugin_ + "/1.0";

  DeltaEmitter out(sink);
  std::unique_ptr<StreamDecoder> decoder = adapter_->decoder(out);
  StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view bytes) { decoder->feed(bytes); };
  callbacks.cancelled = [&] { return sink.cancelled(); };
  callbacks.set_waker = [&](void (*wake)(void*), void* ctx) { return sink.set_waker(wake, ctx); };
  callbacks.complete = [&] { return decoder->complete(); };
  HttpResponse response = post_streaming(http, callbacks);
  if (response.status < 200 || response.status >= 300)
    throw map_http_error(response, adapter_->parse_error(response.body), key, std::time(nullptr));
  decoder->end_of_stream();
}

}  // namespace agentrt::providers
