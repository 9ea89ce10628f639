// Reads an HTTP/1.1 request head (RFC 9112 2-5): the request line and the header
// fields up to the empty line, and nothing after it, so the body and any pipelined
// request stay unread. Poco's parser did the same through an std::istream built per
// request (with its locale) and decoded RFC 2047 words in values; together that was
// about 6% of agentd's CPU at 16 concurrent /chat.
//
// It is stricter than Poco's where leniency lets a request mean two things (RFC 9112
// 5.1, 5.2, 6.1-6.3, 11.2): whitespace before a field's colon, a line without a colon,
// a folded (obs-fold) line, a bare CR or a NUL are refused, not skipped or joined; so
// are a transfer coding other than a lone "chunked", one with a Content-Length, and
// Content-Lengths that disagree. Limits are
// Poco's: a method of 32 bytes, a target of 16 KiB, 100 fields, names of 256 bytes and
// values of 8 KiB.
#pragma once

#include <Poco/Net/HTTPRequest.h>

#include <string_view>

namespace agentrt::server {

class ServerSession;

// Reads the head from `session` into `request` (method, target, version, fields).
// Throws Poco::Net::NoMessageException when the connection ends before a request
// starts, Poco::Net::MessageException for a malformed or oversized head, and what the
// session's reads throw (a timeout, a reset).
void read_request_head(ServerSession& session, Poco::Net::HTTPRequest& request);

// The same from bytes in memory (tests); returns how many bytes the head took.
size_t parse_request_head(std::string_view bytes, Poco::Net::HTTPRequest& request);

}  // namespace agentrt::server
