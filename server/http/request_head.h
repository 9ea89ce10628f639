// Reads an HTTP/1.1 request head (RFC 9112 2-5): the request line and the header
// fields up to the empty line, and nothing after it, so the body and any pipelined
// request stay unread. Poco's parser did the same through an std::istream built per
// request (with its locale) and decoded RFC 2047 words in values; together that was
// about 6% of agentd's CPU at 16 concurrent /chat.
//
// It is stricter than Poco's where leniency lets a request mean two things (RFC 9112
// 5.1, 5.2, 6.1-6.3, 11.2): whitespace before a field's colon, a line without a colon,
// a folded (obs-fold) line, a bare CR or a NUL are refused, not skipped or joined; so
// are a transfer coding other than a lone "chunked", one with a Content-Length,
// Content-Lengths that disagree, and one that is not digits alone (Poco's took a sign,
// spaces and thousands separators: "1,000"); and as RFC 9112 3.2 demands, an HTTP/1.1
// head without a Host, or any with two or an invalid one. Limits are
// Poco's: a method of 32 bytes, a target of 16 KiB, 100 fields, names of 256 bytes and
// values of 8 KiB.
#pragma once

#include <Poco/Net/HTTPRequest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::server {

class ServerSession;

// What the server asks of every request, learned in the one pass over the fields that
// checks the framing: each of Poco's getters (getKeepAlive, getContentLength64, ...) is a
// case-insensitive walk over all of them, and with the pipeline's own lookups they were
// about 3% of a /chat's instructions.
struct RequestHead {
  bool chunked = false;                    // "Transfer-Encoding: chunked", alone
  std::optional<uint64_t> content_length;  // a valid one: any other is refused
  // Decided as Poco's getKeepAlive does: a Connection field other than "close", or
  // none and HTTP/1.1.
  bool keep_alive = false;
  bool expect_continue = false;  // "Expect: 100-continue"
  // The first field of each of these names, or null. They point into the request, which
  // must outlive them and not change after the head is read.
  const std::string* content_type = nullptr;
  const std::string* authorization = nullptr;
  const std::string* request_id = nullptr;     // X-Request-Id
  const std::string* last_event_id = nullptr;  // Last-Event-ID: an EventSource resuming
  // The first Content-Encoding field that names a coding other than identity: a body
  // agentd cannot read, refused with 415 where a body is read.
  const std::string* content_coding = nullptr;
};

// One of RequestHead's fields as text, "" when absent.
inline std::string_view field_text(const std::string* field) {
  return field != nullptr ? std::string_view(*field) : std::string_view();
}

// Reads the head from `session` into `request` (method, target, version, fields).
// Throws Poco::Net::NoMessageException when the connection ends before a request
// starts, Poco::Net::MessageException for a malformed or oversized head, and what the
// session's reads throw (a timeout, a reset).
RequestHead read_request_head(ServerSession& session, Poco::Net::HTTPRequest& request);

// The same from bytes in memory (tests); returns how many bytes the head took.
size_t parse_request_head(std::string_view bytes, Poco::Net::HTTPRequest& request,
                          RequestHead* head = nullptr);

}  // namespace agentrt::server
