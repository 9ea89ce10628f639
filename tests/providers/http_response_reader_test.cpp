// The response reader of the built-in upstream client, fed as the network might cut
// the bytes: every framing, interim answers, and every malformed head it refuses.
#include "common/http_response_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::test {
namespace {

using providers::HttpProtocolError;
using providers::HttpResponseReader;

struct Read {
  long status = 0;
  std::string body;
  bool done = false;
  bool reusable = false;
  providers::HttpHeaders headers;
};

// Feeds `bytes` cut at `cuts` (offsets, ascending), then ends the input when `eof`.
Read read(const std::string& bytes, const std::vector<size_t>& cuts = {}, bool eof = false) {
  Read out;
  HttpResponseReader reader([&](std::string_view piece) { out.body.append(piece); });
  size_t at = 0;
  for (size_t cut : cuts) {
    reader.feed(std::string_view(bytes).substr(at, cut - at));
    at = cut;
  }
  reader.feed(std::string_view(bytes).substr(at));
  if (eof) reader.end_of_input();
  out.status = reader.status();
  out.done = reader.done();
  out.reusable = reader.reusable();
  out.headers = reader.headers();
  return out;
}

const std::string kChunked =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    "8\r\ndata: 1\n\r\nA;name=value\r\ndata: 22\n\n\r\n0\r\nX-Trailer: t\r\n\r\n";

TEST(HttpResponseReader, ReadsAChunkedBodyAndKeepsTheConnection) {
  Read r = read(kChunked);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "data: 1\ndata: 22\n\n");
  EXPECT_TRUE(r.done);
  EXPECT_TRUE(r.reusable);
  EXPECT_EQ(r.headers.at("content-type"), "text/event-stream");
}

TEST(HttpResponseReader, EveryCutOfAChunkedResponseReadsTheSame) {
  for (size_t cut = 1; cut < kChunked.size(); ++cut) {
    Read r = read(kChunked, {cut});
    EXPECT_EQ(r.body, "data: 1\ndata: 22\n\n") << "cut at " << cut;
    EXPECT_TRUE(r.done && r.reusable) << "cut at " << cut;
  }
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < kChunked.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(read(kChunked, every_byte).body, "data: 1\ndata: 22\n\n");
}

TEST(HttpResponseReader, ReadsAContentLengthBodyAndStopsThere) {
  const std::string bytes = "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 5\r\n\r\nslow!";
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    Read r = read(bytes, {cut});
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.body, "slow!");
    EXPECT_TRUE(r.done && r.reusable) << "cut at " << cut;
  }
}

TEST(HttpResponseReader, ABodyWithoutFramingRunsToTheEndOfTheConnection) {
  const std::string bytes = "HTTP/1.1 200 OK\r\n\r\nuntil the end";
  Read open = read(bytes);
  EXPECT_FALSE(open.done);
  Read closed = read(bytes, {}, /*eof=*/true);
  EXPECT_EQ(closed.body, "until the end");
  EXPECT_TRUE(closed.done);
  EXPECT_FALSE(closed.reusable);
}

TEST(HttpResponseReader, SkipsInterimAnswersAndKeepsOnlyTheFinalHeaders) {
  Read r = read(
      "HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Thing: a\r\nset-thing: b\r\n\r\nok");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(r.headers.count("x-early"), 0u);
  EXPECT_EQ(r.headers.at("set-thing"), "a, b");
}

TEST(HttpResponseReader, AcceptsBareLineFeeds) {
  Read r = read("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\n\n");
  EXPECT_EQ(r.body, "ok");
  EXPECT_TRUE(r.done && r.reusable);
}

TEST(HttpResponseReader, ConnectionCloseHttp10AndStrayBytesEndReuse) {
  EXPECT_FALSE(read("HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n")
                   .reusable);
  EXPECT_FALSE(read("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").reusable);
  Read stray = read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA");
  EXPECT_EQ(stray.body, "ok");
  EXPECT_TRUE(stray.done);
  EXPECT_FALSE(stray.reusable);
  Read empty = read("HTTP/1.1 204 No Content\r\n\r\n");
  EXPECT_TRUE(empty.done && empty.reusable);
}

TEST(HttpResponseReader, AnotherCodingThanChunkedRunsToTheClose) {
  Read r = read("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef", {},
                /*eof=*/true);
  EXPECT_EQ(r.body, "abcdef");
  EXPECT_FALSE(r.reusable);
}

TEST(HttpResponseReader, RefusesWhatCouldBeReadTwoWays) {
  const std::vector<std::string> bad = {
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      "ICY 200 OK\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
      "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
  };
  for (const std::string& bytes : bad) EXPECT_THROW(read(bytes), HttpProtocolError) << bytes;
}

// A field's name is RFC 9110's token, every one of its characters allowed and nothing
// else; its value holds no CR or NUL, which a reader further on could split at.
TEST(HttpResponseReader, FieldNamesAreTokensAndValuesHoldNoCrOrNul) {
  Read r = read("HTTP/1.1 200 OK\r\nX-!#$%&'*+-.^_`|~09Az: v\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(r.headers.at("x-!#$%&'*+-.^_`|~09az"), "v");
  for (const char* name : {"X(", "X@", "X\"", "X/", "X\x80", "X\t"})
    EXPECT_THROW(read(std::string("HTTP/1.1 200 OK\r\n") + name + ": v\r\n\r\n"), HttpProtocolError)
        << name;
  EXPECT_THROW(read("HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n"), HttpProtocolError);
  EXPECT_THROW(read(std::string("HTTP/1.1 200 OK\r\nX-A: a") + '\0' + "b\r\n\r\n"),
               HttpProtocolError);
}

TEST(HttpResponseReader, AgreeingContentLengthsAreOne) {
  Read r = read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok");
  EXPECT_EQ(r.body, "ok");
  EXPECT_TRUE(r.reusable);
}

TEST(HttpResponseReader, AnEndInsideTheAnswerIsAnError) {
  EXPECT_THROW(read("HTTP/1.1 200 OK\r\nContent-Le", {}, true), HttpProtocolError);
  EXPECT_THROW(read("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", {}, true),
               HttpProtocolError);
  EXPECT_THROW(read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", {}, true),
               HttpProtocolError);
}

TEST(HttpResponseReader, BoundsTheHeadAndTheChunkLines) {
  std::string huge = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n";
  EXPECT_THROW(read(huge), HttpProtocolError);
  std::string long_line =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(2000, 'x') + "\r\n";
  EXPECT_THROW(read(long_line), HttpProtocolError);
}

}  // namespace
}  // namespace agentrt::test
