// The request head reader (server/http/request_head.h), from bytes in memory.
#include "server/http/request_head.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/NetException.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::server {
namespace {

// An HTTP/1.1 head, which must name its Host.
std::string with_fields(const std::string& fields) {
  return "GET /x HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n";
}

void expect_refused(const std::string& head, const std::string& why) {
  Poco::Net::HTTPRequest request;
  EXPECT_THROW(parse_request_head(head, request), Poco::Net::MessageException) << why;
}

TEST(RequestHead, ReadsTheLineAndFieldsAndStopsAtTheEmptyLine) {
  const std::string head =
      "POST /chat?x=1 HTTP/1.1\r\nHost: a\r\ncontent-TYPE:application/json \t\r\n"
      "X-Many: 1\r\nX-Many: 2\r\nContent-Length: 4\r\n\r\n";
  Poco::Net::HTTPRequest request;
  EXPECT_EQ(parse_request_head(head + "body" + "GET / HTTP/1.1\r\n", request), head.size())
      << "the body and a pipelined request must stay unread";
  EXPECT_EQ(request.getMethod(), "POST");
  EXPECT_EQ(request.getURI(), "/chat?x=1");
  EXPECT_EQ(request.getVersion(), "HTTP/1.1");
  EXPECT_EQ(request.getContentType(), "application/json");  // names in any case, OWS trimmed
  EXPECT_EQ(request.getContentLength64(), 4);
  EXPECT_EQ(request.get("X-Many"), "1");
  EXPECT_EQ(request.size(), 5u);
}

TEST(RequestHead, AllowsEmptyLinesBeforeTheRequestAndBareLineFeeds) {
  Poco::Net::HTTPRequest request;
  const std::string head = "\r\n\nGET / HTTP/1.0\nHost: a\n\n";
  EXPECT_EQ(parse_request_head(head, request), head.size());
  EXPECT_EQ(request.getURI(), "/");
  EXPECT_EQ(request.get("Host"), "a");
}

TEST(RequestHead, AnEmptyConnectionIsNoMessageNotAMalformedOne) {
  Poco::Net::HTTPRequest request;
  EXPECT_THROW(parse_request_head("", request), Poco::Net::NoMessageException);
  EXPECT_THROW(parse_request_head("\r\n", request), Poco::Net::NoMessageException);
}

TEST(RequestHead, RefusesWhatCouldBeReadTwoWays) {
  expect_refused(with_fields("Content-Length : 5\r\n"), "whitespace before the colon");
  expect_refused(with_fields("Host a\r\n"), "a line without a colon");
  expect_refused(with_fields("X-A: 1\r\n folded\r\n"), "obs-fold");
  expect_refused("GET /x HTTP/1.1\r\n Host: a\r\n\r\n", "whitespace before the first field");
  expect_refused(with_fields(std::string("X-A: a\0b\r\n", 10)), "NUL in a value");
  expect_refused(with_fields("X-A: a\rb\r\n"), "a bare CR");
  expect_refused("GET /x HTTP/1.1\r\nHost: a\r\n", "a head cut before its empty line");
  expect_refused("GET /x HTTP/1.1 extra\r\n\r\n", "a fourth word on the request line");
  expect_refused("GET\r\n\r\n", "no target");
  expect_refused("GET /\xc3\xa9 HTTP/1.1\r\n\r\n", "a non-ASCII target");
  expect_refused("G(T / HTTP/1.1\r\n\r\n", "a method that is no token");
}

// A body whose length could be read two ways is how one request smuggles another
// (RFC 9112 6.1, 6.3).
TEST(RequestHead, RefusesABodyWhoseLengthHasTwoAnswers) {
  expect_refused(with_fields("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
                 "both framings");
  expect_refused(with_fields("Transfer-Encoding: gzip, chunked\r\n"), "a coding we do not undo");
  expect_refused(with_fields("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
                 "a repeated coding");
  expect_refused(with_fields("Content-Length: 5\r\nContent-Length: 6\r\n"), "disagreeing lengths");
  Poco::Net::HTTPRequest request;
  EXPECT_NO_THROW(
      parse_request_head(with_fields("Content-Length: 5\r\ncontent-length: 5\r\n"), request))
      << "a repeated length that agrees";
  Poco::Net::HTTPRequest chunked;
  EXPECT_NO_THROW(parse_request_head(with_fields("Transfer-Encoding: Chunked\r\n"), chunked));
  EXPECT_TRUE(chunked.getChunkedTransferEncoding());
}

// Two credentials are two answers to who is asking: a proxy in front that checks one and
// agentd that acts on the other disagree, whichever of the two agentd would take.
TEST(RequestHead, RefusesASecondAuthorizationField) {
  expect_refused(with_fields("Authorization: Bearer a\r\nAuthorization: Bearer b\r\n"), "two");
  expect_refused(with_fields("Authorization: Bearer a\r\nauthorization: Bearer a\r\n"),
                 "the same twice");
  expect_refused(with_fields("Authorization: Bearer a\r\nAuthorization:\r\n"), "an empty second");
}

// Content-Length = 1*DIGIT: Poco's parser also took a sign and thousands separators, so
// "1,000" was a body of a thousand bytes to it and of one to a stricter reader.
TEST(RequestHead, RefusesALengthThatIsNotDigitsAlone) {
  for (const char* length : {"ten", "1,000", "+5", "-1", "5 5", "0x10", ""})
    expect_refused(with_fields("Content-Length: " + std::string(length) + "\r\n"), length);
  RequestHead head;
  Poco::Net::HTTPRequest request;
  parse_request_head(with_fields("Content-Length:  007 \r\n"), request, &head);
  EXPECT_EQ(head.content_length, 7u);
  EXPECT_FALSE(head.chunked);
}

// Digits alone are a length however many there are: past any limit, they read as the
// largest length and get the 413 of a body too large, not a 400.
TEST(RequestHead, ALengthOfManyDigitsIsTheLargestLength) {
  const std::vector<std::pair<std::string, uint64_t>> lengths = {
      {"999999999999999999", 999999999999999999u},
      {std::string(30, '0') + "12", 12u},
      {"1000000000000000000", UINT64_MAX},
      {"99999999999999999999999999", UINT64_MAX}};
  for (const auto& [text, value] : lengths) {
    RequestHead head;
    Poco::Net::HTTPRequest request;
    parse_request_head(with_fields("Content-Length: " + text + "\r\n"), request, &head);
    EXPECT_EQ(head.content_length, value) << text;
  }
}

// RequestHead answers what Poco's getters answered, in the one pass over the fields.
TEST(RequestHead, AnswersAsPocosGettersDid) {
  const std::vector<std::string> heads = {
      "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
      "GET / HTTP/1.0\r\n\r\n",
      "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: h\r\nconnection: CLOSE\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: h\r\nConnection: close, upgrade\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: h\r\nConnection:\r\n\r\n",
      "GET / HTTP/1.0\r\nConnection:\r\nConnection: keep-alive\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue, x\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\nexpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\ncontent-type: application/json\r\n"
      "AUTHORIZATION: Bearer a\r\nx-request-id: r1\r\nX-Request-Id: r2\r\n\r\n",
  };
  for (const std::string& text : heads) {
    Poco::Net::HTTPRequest request;
    RequestHead head;
    parse_request_head(text, request, &head);
    EXPECT_EQ(head.keep_alive, request.getKeepAlive()) << text;
    EXPECT_EQ(head.expect_continue, request.getExpectContinue()) << text;
    EXPECT_EQ(head.chunked, request.getChunkedTransferEncoding()) << text;
    EXPECT_EQ(head.content_length.has_value(), request.hasContentLength()) << text;
    if (head.content_length) {
      EXPECT_EQ(static_cast<int64_t>(*head.content_length), request.getContentLength64()) << text;
    }
    EXPECT_EQ(field_text(head.content_type), request.get("Content-Type", "")) << text;
    EXPECT_EQ(field_text(head.authorization), request.get("Authorization", "")) << text;
    EXPECT_EQ(field_text(head.request_id), request.get("X-Request-Id", "")) << text;
  }
  // Its fields point into the request they were read from, which must outlive them.
  Poco::Net::HTTPRequest request;
  RequestHead head;
  parse_request_head(heads.back(), request, &head);
  EXPECT_EQ(field_text(head.authorization), "Bearer a");
  EXPECT_EQ(field_text(head.request_id), "r1") << "the first";
  Poco::Net::HTTPRequest bare;
  parse_request_head("GET / HTTP/1.0\r\n\r\n", bare, &head);
  EXPECT_EQ(head.authorization, nullptr);
}

// RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host, and to
// any with two Host fields or an invalid one. Content-Type is one field, as
// Authorization is: a proxy in front and agentd could each read another of two.
TEST(RequestHead, RefusesAMissingDoubledOrInvalidHostAndADoubledContentType) {
  expect_refused("GET /x HTTP/1.1\r\n\r\n", "HTTP/1.1 without Host");
  expect_refused("GET /x HTTP/1.1\r\nX-A: 1\r\n\r\n", "HTTP/1.1 without Host");
  expect_refused(with_fields("Host: h\r\n"), "two Host fields, the same");
  expect_refused(with_fields("host: other\r\n"), "two Host fields");
  for (const char* host : {"a b", "a/b", "user@h", "h?x", "h#x", "\"h\"", "h\\x"})
    expect_refused(std::string("GET /x HTTP/1.1\r\nHost: ") + host + "\r\n\r\n", host);
  expect_refused(with_fields("Content-Type: application/json\r\nContent-Type: text/plain\r\n"),
                 "two Content-Type fields");
  expect_refused(
      with_fields("Content-Type: application/json\r\ncontent-type: application/json\r\n"),
      "two Content-Type fields, the same");
  for (const char* host : {"", "127.0.0.1:9091", "[::1]:80", "api.example.com", "xn--bcher-kva.ch",
                           "h%41st", "a-b_c~d!e$f&g'h(i)j*k+l,m;n=o"}) {
    Poco::Net::HTTPRequest request;
    EXPECT_NO_THROW(
        parse_request_head(std::string("GET /x HTTP/1.1\r\nHost: ") + host + "\r\n\r\n", request))
        << host;
  }
  Poco::Net::HTTPRequest request;
  EXPECT_NO_THROW(parse_request_head("GET /x HTTP/1.0\r\n\r\n", request)) << "1.0 needs none";
}

TEST(RequestHead, KeepsPocosLimitsToTheByte) {
  const auto parse = [](const std::string& head) {
    Poco::Net::HTTPRequest request;  // a fresh one: fields add to those read before
    return parse_request_head(head, request);
  };
  std::string fields;
  for (int i = 0; i < 99; ++i) fields += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_NO_THROW(parse(with_fields(fields))) << "Host and 99 more";
  expect_refused(with_fields(fields + "X-99: v\r\n"), "101 fields");

  const std::string name(256, 'n'), value(8192, 'v');
  EXPECT_NO_THROW(parse(with_fields(name + ": " + value + "\r\n")));
  expect_refused(with_fields(name + "n: v\r\n"), "a 257-byte name");
  expect_refused(with_fields("X: " + value + "v\r\n"), "an 8193-byte value");

  EXPECT_NO_THROW(parse(std::string(32, 'M') + " / HTTP/1.0\r\n\r\n"));
  expect_refused(std::string(33, 'M') + " / HTTP/1.0\r\n\r\n", "a 33-byte method");
  EXPECT_NO_THROW(parse("GET /" + std::string(16383, 't') + " HTTP/1.0\r\n\r\n"));
  expect_refused("GET /" + std::string(16384, 't') + " HTTP/1.0\r\n\r\n", "a 16385-byte target");
}

}  // namespace
}  // namespace agentrt::server
