// The HTTP request head reader (server/http/request_head.h) on any bytes. Besides not
// crashing, a head it takes must:
//   - have taken no byte past its empty line: the same bytes cut there read the same;
//   - hold only what RFC 9112 lets a head hold: token methods and names, visible
//     targets, values with no CR, LF or NUL and no whitespace at either end;
//   - read back the same once written out canonically (CRLF, one space, "name: value"):
//     the same request line, fields in the same order, and the same RequestHead.
// A head it refuses must be refused with the exceptions the connection loop expects.
#include "fuzz/fuzz_support.h"
#include "server/http/request_head.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/NetException.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using agentrt::server::field_text;
using agentrt::server::parse_request_head;
using agentrt::server::RequestHead;
using Fields = std::vector<std::pair<std::string, std::string>>;

struct Parsed {
  Poco::Net::HTTPRequest request;
  RequestHead head;
  std::size_t used = 0;
};

// The head of `bytes`, or false when it is refused as the connection loop expects.
bool parse(std::string_view bytes, Parsed& parsed) {
  try {
    parsed.used = parse_request_head(bytes, parsed.request, &parsed.head);
    return true;
  } catch (const Poco::Net::NoMessageException&) {
  } catch (const Poco::Net::MessageException&) {
  }
  return false;
}

Fields fields_of(const Poco::Net::HTTPRequest& request) {
  Fields fields;
  for (const auto& [name, value] : request) fields.emplace_back(name, value);
  return fields;
}

bool is_tchar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!is_tchar(c)) return false;
  return true;
}

void check_shape(const Poco::Net::HTTPRequest& request) {
  FUZZ_CHECK(is_token(request.getMethod()), "a method is a token");
  FUZZ_CHECK(!request.getURI().empty(), "a target is never empty");
  for (char c : request.getURI()) FUZZ_CHECK(c > ' ' && c < 0x7f, "a target is visible ASCII");
  for (const auto& [name, value] : request) {
    FUZZ_CHECK(is_token(name), "a field name is a token");
    for (char c : value) FUZZ_CHECK(c != '\r' && c != '\n' && c != '\0', "no CR, LF or NUL");
    if (!value.empty()) {
      FUZZ_CHECK(value.front() != ' ' && value.front() != '\t', "leading whitespace trimmed");
      FUZZ_CHECK(value.back() != ' ' && value.back() != '\t', "trailing whitespace trimmed");
    }
  }
}

std::string canonical(const Poco::Net::HTTPRequest& request) {
  std::string out =
      request.getMethod() + " " + request.getURI() + " " + request.getVersion() + "\r\n";
  for (const auto& [name, value] : request) out += name + ": " + value + "\r\n";
  return out + "\r\n";
}

void check_same(const Parsed& a, const Parsed& b, const char* what) {
  FUZZ_CHECK(a.request.getMethod() == b.request.getMethod(), what);
  FUZZ_CHECK(a.request.getURI() == b.request.getURI(), what);
  FUZZ_CHECK(a.request.getVersion() == b.request.getVersion(), what);
  FUZZ_CHECK(fields_of(a.request) == fields_of(b.request), what);
  FUZZ_CHECK(a.head.chunked == b.head.chunked, what);
  FUZZ_CHECK(a.head.content_length == b.head.content_length, what);
  FUZZ_CHECK(a.head.keep_alive == b.head.keep_alive, what);
  FUZZ_CHECK(a.head.expect_continue == b.head.expect_continue, what);
  FUZZ_CHECK(field_text(a.head.content_type) == field_text(b.head.content_type), what);
  FUZZ_CHECK(field_text(a.head.authorization) == field_text(b.head.authorization), what);
  FUZZ_CHECK(field_text(a.head.request_id) == field_text(b.head.request_id), what);
  FUZZ_CHECK(field_text(a.head.last_event_id) == field_text(b.head.last_event_id), what);
  FUZZ_CHECK(field_text(a.head.content_coding) == field_text(b.head.content_coding), what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Parsed parsed;
  if (!parse(bytes, parsed)) return 0;
  FUZZ_CHECK(parsed.used <= size, "a head is within its bytes");
  FUZZ_CHECK(!parsed.head.chunked || !parsed.head.content_length, "one framing at most");
  check_shape(parsed.request);

  Parsed cut;
  FUZZ_CHECK(parse(bytes.substr(0, parsed.used), cut), "the head alone reads");
  FUZZ_CHECK(cut.used == parsed.used, "the head alone takes the same bytes");
  check_same(parsed, cut, "the head alone reads the same");

  const std::string written = canonical(parsed.request);
  Parsed again;
  FUZZ_CHECK(parse(written, again), "a head written out reads again");
  FUZZ_CHECK(again.used == written.size(), "a head written out is read whole");
  check_same(parsed, again, "a head written out reads the same");
  return 0;
}
