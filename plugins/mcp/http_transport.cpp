#include "mcp/http_transport.h"

#include "common/curl_handles.h"
#include "mcp/message_reader.h"

#include <agentrt/plugin.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace agentrt::mcp {

using nlohmann::json;
using sdk::Error;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

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
  EventStreamReader events;
  std::vector<json> server_requests;  // answered once libcurl is out of its callback
  std::exception_ptr failure;         // thrown in a callback, rethrown outside libcurl
  std::optional<json> response;

  // A message of the stream: the response we wait for, a notification, a request of
  // the server's, or other traffic (another request's progress) that is passed over.
  void on_message(const std::string& text) {
    ServerMessage read = read_message(text, /*require_version=*/false);
    if (read.kind == MessageKind::request) {
      server_requests.push_back(std::move(read.message));
    } else if (read.kind == MessageKind::notification && on_notification) {
      try {
        on_notification(read.message);
      } catch (const std::exception&) {
      }
    } else if (read.kind == MessageKind::response && read.message["id"].dump() == want_id) {
      response = std::move(read.message);
    }
  }

  // Ready for another stream of the same request (a resumption), which goes on from
  // the same `id:` and `retry:`.
  void restart() {
    status = 0;
    typed = event_stream = false;
    body.clear();
    events.restart();
  }
};

namespace {

constexpr size_t kMaxBody = 64u << 20;
// How long to wait before taking up a stream whose server named no `retry`, and how
// many times one request's stream is taken up (its timeout bounds them too).
constexpr milliseconds kDefaultRetry{1000};
constexpr int kMaxResumes = 1000;

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
    try {
      ex->events.feed(std::string_view(data, n),
                      [ex](const std::string& message) { ex->on_message(message); });
    } catch (...) {
      ex->failure = std::current_exception();  // no exception may cross libcurl
      return 0;
    }
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
    std::unique_ptr<curl_slist, ListDeleter> headers(header_list(ex, false));
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
// A GET takes up an event stream where its last event left off.
curl_slist* HttpTransport::header_list(Exchange& exchange, bool get) {
  std::vector<std::string> lines = headers_;
  if (get) {
    lines.push_back("Accept: text/event-stream");
    lines.push_back("Last-Event-ID: " + exchange.events.last_event_id());
  } else {
    lines.push_back("Accept: application/json, text/event-stream");
    lines.push_back("Content-Type: application/json");
  }
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

namespace {

// The options of one transfer: a POST of `body`, or a GET when there is none.
void set_options(CURL* e, HttpTransport::Exchange& ex, curl_slist* headers, const char* url,
                 const std::string* body, milliseconds timeout) {
  curl_easy_setopt(e, CURLOPT_URL, url);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  if (body) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body->c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  }
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
}

}  // namespace

// Driven through a multi handle so that a cancel is seen every 50 ms even while the
// server sends nothing (libcurl's progress callback may then come only once a second).
void HttpTransport::transfer(Exchange& ex, const std::string* body, milliseconds timeout) {
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  CURLM* multi = curl_multi_init();
  if (!easy || !multi) {
    if (multi) curl_multi_cleanup(multi);
    throw Error(AGENTRT_ERR_INTERNAL, "mcp: libcurl could not make a handle");
  }
  ex.easy = easy.get();
  std::unique_ptr<curl_slist, ListDeleter> headers(header_list(ex, body == nullptr));
  CURL* e = easy.get();
  set_options(e, ex, headers.get(), url_.c_str(), body, timeout);
  curl_multi_add_handle(multi, e);
  int running = 1;
  bool cancelled = false;
  while (running) {
    curl_multi_perform(multi, &running);
    answer_server_requests(ex);
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
  if (ex.failure) std::rethrow_exception(ex.failure);
  if (cancelled || result == CURLE_ABORTED_BY_CALLBACK)
    throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
  if (result == CURLE_OK || ex.response) return;  // a write error once the response came
  if (result == CURLE_OPERATION_TIMEDOUT)
    throw Error(AGENTRT_ERR_TIMEOUT,
                "mcp server did not answer in " + std::to_string(timeout.count()) + " ms");
  throw Error(AGENTRT_ERR_UNAVAILABLE,
              std::string("mcp server unreachable: ") + curl_easy_strerror(result));
}

// The server's requests, each answered by a POST of its own, as streamable HTTP has
// a client answer them.
void HttpTransport::answer_server_requests(Exchange& ex) {
  std::vector<json> requests = std::move(ex.server_requests);
  ex.server_requests.clear();
  if (!requests.empty() && !ex.session_id.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    session_id_ = ex.session_id;  // the answers belong to the session that asked
  }
  for (const json& request : requests) {
    try {
      notify(answer_to_server_request(request));
    } catch (const Error&) {
      // the server went away meanwhile: the awaited response says so, or never comes
    }
  }
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

// The messages of an answer whose transfer has ended.
void HttpTransport::read_answer(Exchange& ex) {
  const auto on_message = [&ex](const std::string& message) { ex.on_message(message); };
  if (ex.event_stream)
    ex.events.finish(on_message);
  else
    read_json_answer(ex.body, on_message);
  answer_server_requests(ex);
}

// Takes up an event stream that ended before the response (MCP's resumability): after
// the server's `retry`, a GET with the last event's id, whose stream the server goes on
// with. A 2025-11-25 server closes a long call's stream on purpose (SEP-1699).
void HttpTransport::resume(Exchange& ex, Clock::time_point deadline, milliseconds timeout) {
  const Error timed_out(AGENTRT_ERR_TIMEOUT,
                        "mcp server did not answer in " + std::to_string(timeout.count()) + " ms");
  const long retry_ms = ex.events.retry_ms();
  const auto at = Clock::now() + (retry_ms >= 0 ? milliseconds(retry_ms) : kDefaultRetry);
  if (at >= deadline) throw timed_out;
  for (auto now = Clock::now(); now < at; now = Clock::now()) {
    if (ex.cancelled && ex.cancelled()) throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
    std::this_thread::sleep_for(std::min<Clock::duration>(milliseconds(50), at - now));
  }
  // At least a millisecond: libcurl takes a timeout of 0 for none.
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  if (left < milliseconds(1)) throw timed_out;
  ex.restart();
  transfer(ex, nullptr, left);
  if (ex.status == 405 || (ex.status >= 200 && ex.status < 300 && !ex.event_stream))
    throw Error(AGENTRT_ERR_UPSTREAM,
                "mcp server ended a response stream before the response and cannot resume it "
                "(HTTP " +
                    std::to_string(ex.status) + " to its GET)");
  check_status(ex);
  read_answer(ex);
}

json HttpTransport::request(const json& request, const CancelCheck& cancelled,
                            milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  Exchange ex;
  ex.want_id = request.at("id").dump();
  ex.cancelled = cancelled;
  ex.on_notification = on_notification_;
  const std::string body = request.dump(-1, ' ', false, json::error_handler_t::replace);
  transfer(ex, &body, timeout);
  check_status(ex);
  read_answer(ex);
  for (int resumed = 0; !ex.response && ex.event_stream && !ex.events.last_event_id().empty() &&
                        resumed < kMaxResumes;
       ++resumed)
    resume(ex, deadline, timeout);
  if (!ex.response)
    throw Error(AGENTRT_ERR_UPSTREAM, "mcp server answered without a JSON-RPC response");
  return std::move(*ex.response);
}

void HttpTransport::notify(const json& notification) {
  Exchange ex;
  const std::string body = notification.dump(-1, ' ', false, json::error_handler_t::replace);
  transfer(ex, &body, milliseconds(10000));
  check_status(ex);
}

}  // namespace agentrt::mcp
