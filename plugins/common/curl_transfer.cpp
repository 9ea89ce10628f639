#include "common/curl_transfer.h"

#include "common/content_encoding.h"

#include <algorithm>
#include <cctype>

namespace agentrt::providers {
namespace {

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
  if (t.response.status == 0) {  // the body's first bytes
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.response.status);
    refuse_encoded_body(t.response.status, t.response.headers);
  }
  if (t.response.status >= 200 && t.response.status < 300) {
    t.on_body(bytes);
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
    // write error, and rethrow it once libcurl has returned.
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

}  // namespace

long check_interval_ms(bool woken, const HttpRequest& request) {
  if (!woken) return kPollMs;
  return std::clamp<long>(request.stall_timeout_ms / 4, kPollMs, kWokenPollMs);
}

void refuse_line_breaks(const std::vector<std::string>& lines) {
  // libcurl sends a line as it is, and a line break inside it would start a field
  // nobody wrote. (Two one-byte finds: find_first_of compares each byte with the set.)
  for (const std::string& line : lines)
    if (line.find('\r') != std::string::npos || line.find('\n') != std::string::npos)
      throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "a request header holds a line break");
}

HeaderList::HeaderList(const std::vector<std::string>& lines) {
  // An empty "Expect:" stops libcurl from waiting for "100 Continue" on large bodies
  // (images), a round trip some servers never answer.
  refuse_line_breaks(lines);
  try {
    append("Expect:");
    for (const std::string& line : lines) append(line);
  } catch (...) {
    clear();  // no destructor runs for a constructor that throws
    throw;
  }
}

void HeaderList::clear() {
  // libcurl's copies of the lines hold the key too; clear them before freeing.
  for (curl_slist* node = list_; node; node = node->next)
    for (char* p = node->data; *p; ++p) *reinterpret_cast<volatile char*>(p) = 0;
  curl_slist_free_all(list_);
  list_ = nullptr;
}

void HeaderList::append(const std::string& line) {
  curl_slist* grown = curl_slist_append(list_, line.c_str());
  if (!grown) throw sdk::Error(AGENTRT_ERR_INTERNAL, "out of memory for request headers");
  list_ = grown;
}

void set_shared_options(CURL* easy) {
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 15L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_write);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, &on_prereq);
}

void configure(EasyHandle& handle, const HttpRequest& request, const HeaderList& headers,
               Transfer& t) {
  CURL* easy = t.easy = handle.get();
  handle.set_url(request.url);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy, CURLOPT_USERAGENT,
                   request.user_agent.empty() ? nullptr : request.user_agent.c_str());
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t.error_buffer);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(easy, CURLOPT_PREREQDATA, &t);
}

void check_stall(Transfer& t, const HttpRequest& request) {
  curl_off_t uploaded = 0;
  curl_easy_getinfo(t.easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
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

sdk::Error transport_error(CURLcode code, const Transfer& t, const HttpRequest& request) {
  std::string detail = t.error_buffer[0] ? t.error_buffer : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:  // only the connect timeout is set
      return sdk::Error(AGENTRT_ERR_TIMEOUT, "upstream connect timed out after " +
                                                 std::to_string(request.connect_timeout_ms) +
                                                 " ms: " + detail);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return sdk::Error(AGENTRT_ERR_UNAVAILABLE, "cannot connect to upstream: " + detail);
    case CURLE_UNSUPPORTED_PROTOCOL:
      // Once connected, it is the answer libcurl cannot read (no HTTP status line).
      if (t.connected)
        return sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                          "upstream connection failed before any response: " + detail);
      [[fallthrough]];
    case CURLE_URL_MALFORMAT:
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

}  // namespace agentrt::providers
