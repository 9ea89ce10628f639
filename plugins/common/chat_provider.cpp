#include "common/chat_provider.h"

#include "common/async_call.h"
#include "common/curl_handles.h"
#include "common/curl_transfer.h"
#include "common/secret_wipe.h"
#include "common/transfer_loop.h"

#include <algorithm>
#include <thread>

namespace agentrt::providers {
namespace {

// One loop a core, at most four: a loop keeps a core busy only at many thousand
// deltas a second, and each loop keeps its own warm connections.
size_t loop_count() {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

}  // namespace

ChatProvider::ChatProvider(const sdk::Host& host, std::string plugin, ProviderConfig config,
                           std::unique_ptr<VendorAdapter> adapter)
    : host_(host),
      plugin_(std::move(plugin)),
      config_(std::move(config)),
      adapter_(std::move(adapter)) {
  ensure_curl_initialised();
}

ChatProvider::~ChatProvider() = default;

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

HttpRequest ChatProvider::prepare(const ChatRequest& chat, const std::string& key) const {
  HttpRequest http = adapter_->build(chat, config_, key);
  http.connect_timeout_ms = config_.connect_timeout_ms;
  http.stall_timeout_ms = config_.stall_timeout_ms;
  http.user_agent = "agentrt-" + plugin_ + "/1.0";
  return http;
}

void ChatProvider::complete(const std::string& request_json, sdk::Sink& sink) {
  complete_borrowed(request_json, sink);
}

bool ChatProvider::start(const std::string& request_json, sdk::AsyncSink sink) {
  return start_borrowed(request_json, sink);
}

// The request is read first, so that one the vendor cannot take is refused before any
// key is looked up. Its reading ends with this function: its reader holds the thread's
// JSON parser (lib/text/json_reader.h), which the stream's decoder borrows next.
HttpRequest ChatProvider::request_for(std::string_view request_json, std::string& key) const {
  const ChatRequest chat = parse_chat_request(request_json);
  key = resolve_key();
  try {
    return prepare(chat, key);
  } catch (const sdk::Error& e) {
    throw redact(e, key);
  }
}

void ChatProvider::complete_borrowed(std::string_view request_json, sdk::Sink& sink) {
  std::string key;
  WipeOnExit wipe_key(key);
  HttpRequest http = request_for(request_json, key);
  WipeOnExit wipe_headers(http.headers);
  try {
    stream(http, key, sink);
  } catch (const sdk::Error& e) {
    throw redact(e, key);
  }
}

void ChatProvider::stream(const HttpRequest& http, const std::string& key, sdk::Sink& sink) const {
  DeltaEmitter out(sink);
  std::unique_ptr<StreamDecoder> decoder = adapter_->decoder(out);
  StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view bytes) { decoder->feed(bytes); };
  callbacks.cancelled = [&] { return sink.cancelled(); };
  callbacks.set_waker = [&](void (*wake)(void*), void* ctx) { return sink.set_waker(wake, ctx); };
  callbacks.complete = [&] { return decoder->complete(); };
  callbacks.flush = [&] { out.flush(); };
  HttpResponse response = post_streaming(http, callbacks);
  end_response(response, *adapter_, *decoder, key);
}

bool ChatProvider::start_borrowed(std::string_view request_json, sdk::AsyncSink sink) {
  std::string key;
  WipeOnExit wipe_key(key);
  HttpRequest http = request_for(request_json, key);
  WipeOnExit wipe_headers(http.headers);
  try {
    // Here, where the key and headers are wiped on the way out, rather than in the
    // call, whose copies of them a throwing constructor would leave unwiped.
    refuse_line_breaks(http.headers);
    // Copies, so that the originals here can be wiped in place; the call wipes its
    // own when it ends.
    submit(std::make_unique<AsyncCall>(sink, key, http, *adapter_));
  } catch (const sdk::Error& e) {
    throw redact(e, key);
  }
  return true;
}

void ChatProvider::submit(std::unique_ptr<AsyncCall> call) {
  std::lock_guard<std::mutex> lock(loops_mutex_);
  if (loops_.empty())
    for (size_t i = 0; i < loop_count(); ++i) loops_.push_back(std::make_unique<TransferLoop>());
  // The least busy loop, the first of equals: calls one after another all land on one
  // loop and reuse its warm connection, while concurrent calls spread evenly, so that
  // no loop needs more connections than its share. Under the lock, two starts cannot
  // both pick the same loop from one look at the loads.
  TransferLoop* best = loops_.front().get();
  for (const auto& loop : loops_)
    if (loop->load() < best->load()) best = loop.get();
  best->submit(std::move(call));
}

}  // namespace agentrt::providers
