#include "common/http_stream.h"

#include "common/curl_handles.h"

#include <agentrt/plugin.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <optional>

namespace agentrt::providers {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollMs = 25;  // cancellation and stall checks happen this often
// With a host that wakes the wait on cancellation, the wait ends for data, for libcurl's
// own timers, for the stall check and at least once a second for the host's idle work
// (keep-alives, client checks), so idle streams stop costing a thread switch per 25 ms.
constexpr long kWokenPollMs = 1000;
// After the end marker, how long the upstream may take to end the response before
// we stop waiting for a formality.
constexpr auto kEndGrace = std::chrono::milliseconds(200);
constexpr size_t kMaxErrorBody = 64 * 1024;

struct Transfer {
  HttpResponse response;
  CURL* easy = nullptr;
  const std::function<void(std::string_view)>* on_body = nullptr;
  std::exception_ptr failure;  // what on_body threw, rethrown once libcurl returns
  bool got_headers = false;    // the upstream started answering
  bool connected = false;      // the request is on its way (connect phase over)
  curl_off_t uploaded = 0;
  Clock::time_point last_activity = Clock::now();
};

// Owns the request's header list for the life of the transfer.
class HeaderList {
 public:
  explicit HeaderList(const std::vector<std::string>& lines) {
    // An empty "Expect:" stops libcurl from waiting for "100 Continue" on large
    // bodies (images), a round trip some servers never answer.
    append("Expect:");
    for (const std::string& line : lines) append(line);
  }
  ~HeaderList() {
    // libcurl's copies of the lines hold the key too; clear them before freeing.
    for (curl_slist* node = list_; node; node = node->next)
      for (char* p = node->data; *p; ++p) *reinterpret_cast<volatile char*>(p) = 0;
    curl_slist_free_all(list_);
  }
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  curl_slist* get() const { return list_; }

 private:
  void append(const std::string& line) {
    curl_slist* grown = curl_slist_append(list_, line.c_str());
    if (!grown) throw sdk::Error(AGENTRT_ERR_INTERNAL, "out of memory for request headers");
    list_ = grown;
  }
  curl_slist* list_ = nullptr;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void record_header(HttpHeaders& headers, std::string_view line) {
  // Each response (an interim 1xx, then the real one) starts with its status line.
  if (line.substr(0, 5) == "HTTP/") {
    headers.clear();
    return;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string name(trim(line.substr(0, colon)));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = trim(line.substr(colon + 1));
  auto [it, inserted] = headers.emplace(name, std::string(value));
  if (!inserted) it->second.append(", ").append(value);
}

// Hands body bytes on straight from libcurl's buffer: to the decoder for a 2xx, into
// the error body otherwise.
void take_body(Transfer& t, std::string_view bytes) {
  if (t.response.status == 0) curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.response.status);
  if (t.response.status >= 200 && t.response.status < 300) {
    (*t.on_body)(bytes);
  } else if (t.response.body.size() < kMaxErrorBody) {
    t.response.body.append(bytes.substr(0, kMaxErrorBody - t.response.body.size()));
  }
}

size_t on_write(char* data, size_t size, size_t count, void* user) noexcept {
  auto* t = static_cast<Transfer*>(user);
  t->last_activity = Clock::now();
  try {
    take_body(*t, std::string_view(data, size * count));
  } catch (...) {
    // No exception may cross libcurl: keep it, let libcurl end the transfer with a
    // write error, and rethrow it when curl_multi_perform returns.
    t->failure = std::current_exception();
    return 0;
  }
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) noexcept {
  auto* t = static_cast<Transfer*>(user);
  try {
    record_header(t->response.headers, std::string_view(data, size * count));
  } catch (...) {
    return 0;
  }
  t->got_headers = true;
  t->last_activity = Clock::now();
  return size * count;
}

// Called once the connection is up (new or reused), right before the request goes
// out: from here on, silence is the upstream's, not the network's.
int on_prereq(void* user, char*, char*, int, int) noexcept {
  auto* t = static_cast<Transfer*>(user);
  t->connected = true;
  t->last_activity = Clock::now();
  return CURL_PREREQFUNC_OK;
}

void configure(CURL* easy, const HttpRequest& request, const HeaderList& headers, Transfer& t,
               char* error_buffer) {
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
  if (!request.user_agent.empty())
    curl_easy_setopt(easy, CURLOPT_USERAGENT, request.user_agent.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 15L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_write);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, &on_prereq);
  curl_easy_setopt(easy, CURLOPT_PREREQDATA, &t);
}

std::optional<CURLcode> finished(CURLM* multi) {
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
    if (message->msg == CURLMSG_DONE) return message->data.result;
  }
  return std::nullopt;
}

void check_stall(CURL* easy, Transfer& t, const HttpRequest& request) {
  curl_off_t uploaded = 0;
  curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
  Clock::time_point now = Clock::now();
  if (uploaded != t.uploaded) {  // a large request body still going out is progress
    t.uploaded = uploaded;
    t.last_activity = now;
  }
  // Before the connection is up the connect timeout rules; this limit only catches
  // a connect phase that somehow never reports its end.
  long limit_ms = t.connected ? request.stall_timeout_ms
                              : request.connect_timeout_ms + request.stall_timeout_ms;
  if (now - t.last_activity > std::chrono::milliseconds(limit_ms))
    throw sdk::Error(AGENTRT_ERR_TIMEOUT,
                     "upstream sent nothing for " + std::to_string(limit_ms) + " ms");
}

sdk::Error transport_error(CURLcode code, const Transfer& t, const char* error_buffer,
                           const HttpRequest& request) {
  std::string detail = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:  // only the connect timeout is set
      return sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream connect timed out after " +
                                                 std::to_string(request.connect_timeout_ms) +
                                                 " ms: " + detail);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return sdk::Error(AGENTRT_ERR_UNAVAILABLE, "cannot connect to upstream: " + detail);
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "unusable upstream URL: " + detail);
    case CURLE_PEER_FAILED_VERIFICATION:
      return sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream TLS certificate refused: " + detail);
    default:
      if (t.got_headers)
        return sdk::Error(AGENTRT_ERR_UPSTREAM,
                          "connection to upstream lost mid-response: " + detail,
                          static_cast<int32_t>(t.response.status));
      return sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                        "upstream connection failed before any response: " + detail);
  }
}

void wake_multi(void* multi) {
  curl_multi_wakeup(static_cast<CURLM*>(multi));
}

// Registered for the length of one transfer; unregistered before the multi handle
// goes back to the lease.
class WakerRegistration {
 public:
  WakerRegistration(const StreamCallbacks& callbacks, CURLM* multi) : callbacks_(callbacks) {
    registered_ = callbacks_.set_waker && callbacks_.set_waker(&wake_multi, multi);
  }
  ~WakerRegistration() {
    if (registered_) callbacks_.set_waker(nullptr, nullptr);
  }
  WakerRegistration(const WakerRegistration&) = delete;
  WakerRegistration& operator=(const WakerRegistration&) = delete;

  // How long the next wait may last: short while only polling can see a cancel, or
  // while the end grace runs; otherwise a quarter of the stall limit, within bounds.
  int wait_ms(bool complete, const HttpRequest& request) const {
    if (!registered_ || complete) return kPollMs;
    return static_cast<int>(std::clamp<long>(request.stall_timeout_ms / 4, kPollMs, kWokenPollMs));
  }

 private:
  const StreamCallbacks& callbacks_;
  bool registered_ = false;
};

}  // namespace

HttpResponse post_streaming(const HttpRequest& request, const StreamCallbacks& callbacks) {
  // Declared before the lease so they outlive it: libcurl may still look at them
  // while the lease detaches the handle.
  Transfer t;
  t.on_body = &callbacks.on_body;
  HeaderList headers(request.headers);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  CurlLease lease;
  t.easy = lease.easy();
  configure(lease.easy(), request, headers, t, error_buffer);
  lease.start();
  WakerRegistration waker(callbacks, lease.multi());
  std::optional<Clock::time_point> complete_at;
  for (;;) {
    int running = 0;
    // Body bytes reach the decoder (and text the sink) from inside this call, so text
    // that arrived before a failure is already out when the failure is reported.
    CURLMcode rc = curl_multi_perform(lease.multi(), &running);
    if (t.failure) std::rethrow_exception(t.failure);
    if (rc != CURLM_OK)
      throw sdk::Error(AGENTRT_ERR_INTERNAL, std::string("libcurl: ") + curl_multi_strerror(rc));
    const bool complete = callbacks.complete && callbacks.complete();
    if (std::optional<CURLcode> done = finished(lease.multi())) {
      if (*done != CURLE_OK && !complete) throw transport_error(*done, t, error_buffer, request);
      curl_easy_getinfo(lease.easy(), CURLINFO_RESPONSE_CODE, &t.response.status);
      return std::move(t.response);
    }
    if (complete) {
      if (!complete_at) complete_at = Clock::now();
      if (Clock::now() - *complete_at > kEndGrace) return std::move(t.response);
    } else {
      if (callbacks.cancelled && callbacks.cancelled())
        throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
      check_stall(lease.easy(), t, request);
    }
    curl_multi_poll(lease.multi(), nullptr, 0, waker.wait_ms(complete, request), nullptr);
  }
}

}  // namespace agentrt::providers
