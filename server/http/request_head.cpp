#include "server/http/request_head.h"

#include "server/http/ascii_case.h"
#include "server/http/server_session.h"

#include <Poco/Net/NetException.h>

#include <array>
#include <cstdio>
#include <string>

namespace agentrt::server {
namespace {

constexpr size_t kMaxMethod = 32;
constexpr size_t kMaxTarget = 16384;
constexpr size_t kMaxVersion = 8;
constexpr size_t kMaxFields = 100;
constexpr size_t kMaxName = 256;
constexpr size_t kMaxValue = 8192;

[[noreturn]] void malformed(const char* what) {
  throw Poco::Net::MessageException(what);
}

// RFC 9110 5.6.2's tchar: what a method or a field name is made of.
constexpr std::array<bool, 128> kTchar = [] {
  std::array<bool, 128> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[c] = table[c - 'a' + 'A'] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool is_tchar(int c) {
  return c >= 0 && c < 128 && kTchar[static_cast<size_t>(c)];
}

class SessionBytes {
 public:
  explicit SessionBytes(ServerSession& session) : session_(session) {}
  int get() { return session_.next_head_byte(); }

 private:
  ServerSession& session_;
};

class MemoryBytes {
 public:
  explicit MemoryBytes(std::string_view bytes) : bytes_(bytes) {}
  int get() { return used_ < bytes_.size() ? static_cast<unsigned char>(bytes_[used_++]) : EOF; }
  size_t used() const { return used_; }

 private:
  std::string_view bytes_;
  size_t used_ = 0;
};

// Takes bytes while `accept(c)` into `out`, at most `limit` of them (refused past it with
// `too_long`), and returns the first byte not taken. They are gathered on the stack and
// appended a run at a time: appended one by one, each is a call into libstdc++, a quarter
// of reading a request's head (bench/README.md).
template <class Source, class Accept>
int take_run(Source& in, int c, std::string& out, size_t limit, Accept accept,
             const char* too_long) {
  char run[128];
  size_t in_run = 0, taken = 0;
  for (; accept(c); c = in.get()) {
    if (taken == limit) malformed(too_long);
    if (in_run == sizeof run) {
      out.append(run, in_run);
      in_run = 0;
    }
    run[in_run++] = static_cast<char>(c);
    ++taken;
  }
  out.append(run, in_run);
  return c;
}

bool is_visible(int c) {
  return c > ' ' && c < 0x7f;
}

// Ends a line: `c` is the byte after its content, CRLF or (leniently, as RFC 9112 2.2
// allows) a bare LF.
template <class Source>
void end_line(Source& in, int c, const char* what) {
  if (c == '\r') c = in.get();
  if (c != '\n') malformed(what);
}

template <class Source>
void read_request_line(Source& in, Poco::Net::HTTPRequest& request) {
  int c = in.get();
  while (c == '\r' || c == '\n') c = in.get();  // empty lines before a request (2.2)
  if (c == EOF) throw Poco::Net::NoMessageException();
  std::string method, target, version;
  c = take_run(in, c, method, kMaxMethod, is_tchar, "request method too long");
  if (method.empty() || c != ' ') malformed("malformed request line");
  while (c == ' ') c = in.get();
  c = take_run(in, c, target, kMaxTarget, is_visible, "request target too long");
  if (target.empty() || c != ' ') malformed("malformed request line");
  while (c == ' ') c = in.get();
  c = take_run(in, c, version, kMaxVersion, is_visible, "malformed HTTP version");
  end_line(in, c, "malformed request line");
  request.setMethod(method);
  request.setURI(target);
  request.setVersion(version);
}

// One field line, its first byte `c` already read. Returns the byte after the line.
template <class Source>
int read_field(Source& in, int c, Poco::Net::HTTPRequest& request) {
  std::string name, value;
  c = take_run(in, c, name, kMaxName, is_tchar, "header field name too long");
  if (name.empty() || c != ':') malformed("malformed header field");
  c = in.get();
  while (c == ' ' || c == '\t') c = in.get();
  c = take_run(
      in, c, value, kMaxValue, [](int b) { return b != '\r' && b != '\n' && b != EOF && b != 0; },
      "header field value too long");
  if (c == EOF || c == 0) malformed("malformed header field value");
  end_line(in, c, "malformed header field value");
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  request.add(name, value);
  c = in.get();
  if (c == ' ' || c == '\t') malformed("folded header field");
  return c;
}

// Content-Length = 1*DIGIT (RFC 9110 8.6). A value past 18 digits (leading zeros not
// counted) is past any body limit: it reads as the largest length, for a 413 like any
// other too large, not as malformed.
uint64_t content_length_value(const std::string& value) {
  if (value.empty()) malformed("malformed Content-Length");
  uint64_t length = 0;
  int digits = 0;
  for (char c : value) {
    if (c < '0' || c > '9') malformed("malformed Content-Length");
    if (digits > 0 || c != '0') ++digits;
    if (digits <= 18) length = length * 10 + static_cast<uint64_t>(c - '0');
  }
  return digits > 18 ? UINT64_MAX : length;
}

// `*first` becomes `value` unless an earlier field of the name set it (Poco's get()
// answers with the first).
void keep_first(const std::string*& first, const std::string& value) {
  if (first == nullptr) first = &value;
}

// Host = uri-host [ ":" port ] (RFC 9112 3.2, RFC 3986 3.2.2): a reg-name, an IPv4
// address or a bracketed IP literal, so these bytes only; empty is allowed.
bool host_value_is_valid(const std::string& value) {
  static const std::string_view kAllowed = "-._~%!$&'()*+,;=:[]";
  for (char c : value) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && kAllowed.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// How long the body is must have one answer (RFC 9112 6.1-6.3): a request that could
// be framed two ways is how one request is smuggled inside another. So only
// "Transfer-Encoding: chunked" alone, never with a Content-Length, and one
// Content-Length value however often it is repeated. The rest of RequestHead is
// gathered in the same pass.
RequestHead read_fields(const Poco::Net::HTTPRequest& request) {
  RequestHead head;
  const std::string* length = nullptr;
  const std::string* connection = nullptr;
  const std::string* expect = nullptr;
  int codings = 0;
  int hosts = 0;
  for (const auto& [name, value] : request) {
    if (equals_ignoring_case(name, "Transfer-Encoding")) {
      if (++codings > 1 || !equals_ignoring_case(value, "chunked"))
        malformed("unsupported transfer coding");
    } else if (equals_ignoring_case(name, "Content-Length")) {
      if (length != nullptr && *length != value) malformed("conflicting Content-Length");
      length = &value;
    } else if (equals_ignoring_case(name, "Content-Type")) {
      // One field (RFC 9110 8.3), for the reason Authorization has one.
      if (head.content_type != nullptr) malformed("more than one Content-Type field");
      head.content_type = &value;
    } else if (equals_ignoring_case(name, "Host")) {
      // RFC 9112 3.2: a server MUST answer 400 to two Host fields or an invalid one.
      if (++hosts > 1) malformed("more than one Host field");
      if (!host_value_is_valid(value)) malformed("malformed Host field");
    } else if (equals_ignoring_case(name, "Authorization")) {
      // One field (RFC 9110 11.6.2): a proxy that checks the last of two while agentd
      // acts on the first would let one caller through as another.
      if (head.authorization != nullptr) malformed("more than one Authorization field");
      head.authorization = &value;
    } else if (equals_ignoring_case(name, "Content-Encoding")) {
      if (!value.empty() && !equals_ignoring_case(value, "identity"))
        keep_first(head.content_coding, value);
    } else if (equals_ignoring_case(name, "X-Request-Id")) {
      keep_first(head.request_id, value);
    } else if (equals_ignoring_case(name, "Last-Event-ID")) {
      keep_first(head.last_event_id, value);
    } else if (equals_ignoring_case(name, "Connection")) {
      keep_first(connection, value);
    } else if (equals_ignoring_case(name, "Expect")) {
      keep_first(expect, value);
    }
  }
  if (codings > 0 && length != nullptr) malformed("both Transfer-Encoding and Content-Length");
  // ... and to an HTTP/1.1 request without one.
  if (hosts == 0 && request.getVersion() == Poco::Net::HTTPMessage::HTTP_1_1)
    malformed("no Host field");
  head.chunked = codings > 0;
  if (length != nullptr) head.content_length = content_length_value(*length);
  head.keep_alive = connection != nullptr && !connection->empty()
                        ? !equals_ignoring_case(*connection, "close")
                        : request.getVersion() == Poco::Net::HTTPMessage::HTTP_1_1;
  head.expect_continue = expect != nullptr && equals_ignoring_case(*expect, "100-continue");
  return head;
}

template <class Source>
RequestHead read_head(Source& in, Poco::Net::HTTPRequest& request) {
  read_request_line(in, request);
  int c = in.get();
  if (c == ' ' || c == '\t') malformed("whitespace before the first header field");
  for (size_t fields = 0; c != '\r' && c != '\n'; ++fields) {
    if (fields == kMaxFields) malformed("too many header fields");
    c = read_field(in, c, request);
  }
  end_line(in, c, "malformed end of request head");
  return read_fields(request);
}

}  // namespace

RequestHead read_request_head(ServerSession& session, Poco::Net::HTTPRequest& request) {
  SessionBytes in(session);
  return read_head(in, request);
}

size_t parse_request_head(std::string_view bytes, Poco::Net::HTTPRequest& request,
                          RequestHead* head) {
  MemoryBytes in(bytes);
  RequestHead read = read_head(in, request);
  if (head) *head = read;
  return in.used();
}

}  // namespace agentrt::server
