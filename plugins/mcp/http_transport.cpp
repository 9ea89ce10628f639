#include "mcp/http_transport.h"

#include "common/curl_handles.h"
#include "common/sse_parser.h"

#include <agentrt/plugin.hpp>

#include <curl/curl.h>

#include <cctype>
#include <memory>
#include <optional>

namespace agentrt::mcp {

using nlohmann::json;
using sdk::Error;
using std::chrono::milliseconds;

struct HttpTransport::Exchange {
  CURL* easy = nullptr;
  std::string want_id;  // the awaited response's id as JSON text; empty for a notification
  CancelCheck cancelled;
  NotificationFn on_notification;
  long status = 0;
  std::string session_id;  // as the server handed it out in this answer
  bool sent_session = false;
  bool event_stream = false;
  bool typed = false;  // event_stream was decided from the Content-Type
  std::string body;    // an application/json answer
  providers::SseParser sse;
  std::optional<json> response;

  // A message of the stream: the response we wait for, a notification, or other
  // traffic (another request's progress) that is passed over.
  void on_message(const std::string& text) {
    json message = json::parse(text, nullptr, false);
    if (!message.is_object()) return;
    if (message.contains("method")) {
      if (!message.contains("id") && on_notification) {
        try {
          on_notification(message);
        } catch (const std::exception&) {
        }
      }
      return;
    }
    if (message.contains("id") && message["id"].dump() == want_id) response = std::move(message);
  }
};

namespace {

constexpr size_t kMaxBody = 64u << 20;

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<HttpTransport::Exchange*>(user);
  std::string line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "mcp-session-id") {
      std::string value = line.substr(colon + 1);
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
        value.erase(0, 1);
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
        value.pop_back();
      ex->session_id = value;
    }
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<HttpTransport::Exchange*>(user);
  const size_t n = size * count;
  if (!ex->typed) {
    char* type = nullptr;
    curl_easy_getinfo(ex->easy, CURLINFO_CONTENT_TYPE, &type);
    ex->event_stream = type && std::string(type).find("text/event-stream") != std::string::npos;
    ex->typed = true;
  }
  if (ex->event_stream) {
    ex->sse.feed(std::string_view(data, n),
                 [ex](const providers::SseEvent& event) { ex->on_message(event.data); });
    // Once the response is here the stream has nothing more for this request.
    return ex->response ? 0 : n;
  }
  if (ex->body.size() + n > kMaxBody) return 0;
  ex->body.append(data, n);
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* ex = static_cast<HttpTransport::Exchange*>(user);
  return ex->cancelled && ex->cancelled() ? 1 : 0;
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

HttpTransport::HttpTransport(std::string url, std::vector<std::string> headers,
                             NotificationFn on_notification)
    : url_(std::move(url)),
      headers_(std::move(headers)),
      on_notification_(std::move(on_notification)) {
  providers::ensure_curl_initialised();
}

HttpTransport::~HttpTransport() {
  end_session();
}

// MCP asks a client that is done with a session to DELETE it, so that the server lets go
// of what it holds for it now rather than at its own timeout. Bounded and quiet: a server
// that keeps no sessions answers 405, one that is gone answers nothing, and neither may
// hold up the removal of its entry or agentd's shutdown for long.
void HttpTransport::end_session() noexcept {
  if (expired_) return;  // the server dropped it already
  try {
    Exchange ex;
    std::unique_ptr<curl_slist, ListDeleter> headers(header_list(ex));
    if (!ex.sent_session) return;  // never initialized: no session to end
    std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
    if (!easy) return;
    CURL* e = easy.get();
    curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(
        e, CURLOPT_WRITEFUNCTION,
        +[](char*, size_t size, size_t count, void*) { return size * count; });
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_perform(e);
  } catch (...) {  // out of memory for the headers: the server's timeout ends the session
  }
}

void HttpTransport::set_protocol_version(const std::string& version) {
  std::lock_guard<std::mutex> lock(mutex_);
  protocol_version_ = version;
}

// Every request's headers: the config's (secrets: never logged), then the protocol's.
curl_slist* HttpTransport::header_list(Exchange& exchange) {
  std::vector<std::string> lines = headers_;
  lines.push_back("Accept: application/json, text/event-stream");
  lines.push_back("Content-Type: application/json");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!protocol_version_.empty()) lines.push_back("MCP-Protocol-Version: " + protocol_version_);
    if (!session_id_.empty()) lines.push_back("Mcp-Session-Id: " + session_id_);
    exchange.sent_session = !session_id_.empty();
  }
  curl_slist* list = nullptr;
  for (const std::string& line : lines) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (!next) {
      curl_slist_free_all(list);
      throw Error(AGENTRT_ERR_INTERNAL, "mcp: out of memory for request headers");
    }
    list = next;
  }
  return list;
}

// Driven through a multi handle so that a cancel is seen every 50 ms even while the
// server sends nothing (libcurl's progress callback may then come only once a second).
void HttpTransport::post(Exchange& ex, const json& message, milliseconds timeout) {
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  CURLM* multi = curl_multi_init();
  if (!easy || !multi) {
    if (multi) curl_multi_cleanup(multi);
    throw Error(AGENTRT_ERR_INTERNAL, "mcp: libcurl could not make a handle");
  }
  ex.easy = easy.get();
  std::unique_ptr<curl_slist, ListDeleter> headers(header_list(ex));
  const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &ex);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, &on_progress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &ex);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, std::min(10000L, long(timeout.count())));
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_multi_add_handle(multi, e);
  int running = 1;
  bool cancelled = false;
  while (running) {
    curl_multi_perform(multi, &running);
    if (!running) break;
    if ((cancelled = ex.cancelled && ex.cancelled())) break;
    curl_multi_poll(multi, nullptr, 0, 50, nullptr);
  }
  CURLcode result = CURLE_OK;
  int queued = 0;
  while (CURLMsg* done = curl_multi_info_read(multi, &queued))
    if (done->msg == CURLMSG_DONE) result = done->data.result;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &ex.status);
  curl_multi_remove_handle(multi, e);
  curl_multi_cleanup(multi);
  if (cancelled || result == CURLE_ABORTED_BY_CALLBACK)
    throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
  if (result == CURLE_OK || ex.response) return;  // a write error once the response came
  if (result == CURLE_OPERATION_TIMEDOUT)
    throw Error(AGENTRT_ERR_TIMEOUT,
                "mcp server did not answer in " + std::to_string(timeout.count()) + " ms");
  throw Error(AGENTRT_ERR_UNAVAILABLE,
              std::string("mcp server unreachable: ") + curl_easy_strerror(result));
}

void HttpTransport::check_status(const Exchange& ex) {
  if (!ex.session_id.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    session_id_ = ex.session_id;
  }
  const long s = ex.status;
  if (s == 404 && ex.sent_session) {
    expired_ = true;  // the client initializes a new session and tries once more
    throw Error(AGENTRT_ERR_UNAVAILABLE, "mcp session expired");
  }
  std::string what = "mcp server answered HTTP " + std::to_string(s);
  if (s >= 400) {
    // Servers put the reason of a refusal in a JSON-RPC error body; it says more.
    const json body = json::parse(ex.body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_object() &&
        body["error"].contains("message") && body["error"]["message"].is_string())
      what += ": " + body["error"]["message"].get<std::string>().substr(0, 200);
  }
  if (s == 401) throw Error(AGENTRT_ERR_UNAUTHENTICATED, what, int32_t(s));
  if (s == 403) throw Error(AGENTRT_ERR_PERMISSION, what, int32_t(s));
  if (s == 429 || s >= 500) throw Error(AGENTRT_ERR_UNAVAILABLE, what, int32_t(s));
  if (s >= 400 || s < 200) throw Error(AGENTRT_ERR_UPSTREAM, what, int32_t(s));
}

json HttpTransport::request(const json& request, const CancelCheck& cancelled,
                            milliseconds timeout) {
  Exchange ex;
  ex.want_id = request.at("id").dump();
  ex.cancelled = cancelled;
  ex.on_notification = on_notification_;
  post(ex, request, timeout);
  check_status(ex);
  if (ex.event_stream) {
    ex.sse.finish([&ex](const providers::SseEvent& event) { ex.on_message(event.data); });
  } else {
    json body = json::parse(ex.body, nullptr, false);
    if (body.is_array()) {
      for (const json& message : body) ex.on_message(message.dump());
    } else if (body.is_object()) {
      ex.on_message(ex.body);
    }
  }
  if (!ex.response)
    throw Error(AGENTRT_ERR_UPSTREAM, "mcp server answered without a JSON-RPC response");
  return std::move(*ex.response);
}

void HttpTransport::notify(const json& notification) {
  Exchange ex;
  post(ex, notification, milliseconds(10000));
  check_status(ex);
}

}  // namespace agentrt::mcp
