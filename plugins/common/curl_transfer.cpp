#include "common/curl_transfer.h"

#include "common/content_encoding.h"

#include <algorithm>
#include <cctype>

namespace agentrt::providers {
namespace {

// libcurl sends a line as it is, and a line break inside it would start a field nobody
// wrote. (Two one-byte finds: find_first_of compares each byte with the set.)
bool has_line_break(const std::string& line) {
  return line.find('\r') != std::string::npos || line.find('\n') != std::string::npos;
}

// The values of the answer's header `name`, joined with ", " as a repeated field's
// are; "" when absent. Read from libcurl's own store of the answer's fields
// (curl_easy_header), which it keeps whether or not anyone asks, rather than copied
// into a map of our own line by line from a header callback.
std::string header_values(CURL* easy, const char* name) {
  std::string joined;
  curl_header* field = nullptr;
  for (size_t i = 0;
       curl_easy_header(easy, name, i, CURLH_HEADER, -1, &field) == CURLHE_OK && field; ++i) {
    if (!joined.empty()) joined += ", ";
    joined += field->value;
    if (i + 1 >= field->amount) break;
  }
  return joined;
}

// Hands body bytes on straight from libcurl's buffer: to the decoder for a 2xx, into
// the error body otherwise.
void take_body(Transfer& t, std::string_view bytes) {
  if (t.response.status == 0) {  // the body's first bytes
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.response.status);
    if (t.response.status >= 200 && t.response.status < 300)
      refuse_encoded_body(t.response.status, header_values(t.easy, "Content-Encoding"));
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
  for (const std::string& line : lines)
    if (has_line_break(line))
      throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "a request header holds a line break");
}

HeaderList::HeaderList(const HttpRequest& request) {
  refuse_line_breaks(request.headers);
  if (has_line_break(request.user_agent))
    throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "the User-Agent holds a line break");
  // A line of the list rather than CURLOPT_USERAGENT, which libcurl formats into a
  // line of its own at every transfer and then copies into the request byte by byte.
  if (!request.user_agent.empty()) user_agent_ = "User-Agent: " + request.user_agent;
  nodes_.reserve(request.headers.size() + 2);
  // An empty "Expect:" stops libcurl from waiting for "100 Continue" on large bodies
  // (images), a round trip some servers never answer.
  static char expect[] = "Expect:";
  link(expect);
  for (const std::string& line : request.headers) link(line.c_str());
  if (!user_agent_.empty()) link(user_agent_.c_str());
}

void HeaderList::link(const char* line) {
  // libcurl only reads the lines (Curl_add_custom_headers in its http.c), so the
  // pointer may shed its const.
  nodes_.push_back(curl_slist{const_cast<char*>(line), nullptr});
  if (nodes_.size() > 1) nodes_[nodes_.size() - 2].next = &nodes_.back();
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
  curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, &on_prereq);
}

void configure(EasyHandle& handle, const HttpRequest& request, HeaderList& headers, Transfer& t) {
  CURL* easy = t.easy = handle.get();
  handle.set_url(request.url);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t.error_buffer);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_PREREQDATA, &t);
}

void check_stall(Transfer& t, const HttpRequest& request) {
  Clock::time_point now = Clock::now();
  // Progress no callback reports: a large request body still going out, and, until
  // the body begins, the answer's status line and fields.
  curl_off_t uploaded = 0;
  curl_easy_getinfo(t.easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
  long head_bytes = t.head_bytes;
  if (t.response.status == 0) curl_easy_getinfo(t.easy, CURLINFO_HEADER_SIZE, &head_bytes);
  if (uploaded != t.uploaded || head_bytes != t.head_bytes) {
    t.uploaded = uploaded;
    t.head_bytes = head_bytes;
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

long answer_status(const Transfer& t) {
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

HttpResponse& finish_response(Transfer& t) {
  t.response.status = answer_status(t);
  if (t.response.status >= 200 && t.response.status < 300) return t.response;
  // Only the error mapping reads the fields (Retry-After and the like).
  curl_header* field = nullptr;
  while ((field = curl_easy_nextheader(t.easy, CURLH_HEADER, -1, field)) != nullptr) {
    std::string name(field->name);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    auto [it, inserted] = t.response.headers.emplace(std::move(name), field->value);
    if (!inserted) it->second.append(", ").append(field->value);
  }
  return t.response;
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
      if (answer_status(t) != 0)
        return sdk::Error(AGENTRT_ERR_UPSTREAM,
                          "connection to upstream lost mid-response: " + detail,
                          static_cast<int32_t>(t.response.status));
      return sdk::Error(AGENTRT_ERR_UNAVAILABLE,
                        "upstream connection failed before any response: " + detail);
  }
}

}  // namespace agentrt::providers
