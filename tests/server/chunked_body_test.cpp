// The chunked body decoder over bytes in memory: what it takes, what it refuses, and
// that it never reads past the body's end.
#include "server/http/chunked_body.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace agentrt::server {
namespace {

// Hands out `bytes` in runs of at most `run` bytes, as a socket might.
class StringSource final : public ChunkedSource {
 public:
  explicit StringSource(std::string bytes, std::size_t run = 7)
      : bytes_(std::move(bytes)), run_(run) {}
  int next_byte() override {
    return used_ < bytes_.size() ? static_cast<unsigned char>(bytes_[used_++]) : EOF;
  }
  std::size_t read_some(char* buffer, std::size_t length) override {
    const std::size_t n = std::min({length, run_, bytes_.size() - used_});
    bytes_.copy(buffer, n, used_);
    used_ += n;
    return n;
  }
  std::string rest() const { return bytes_.substr(used_); }

 private:
  std::string bytes_;
  std::size_t run_;
  std::size_t used_ = 0;
};

struct Decoded {
  ChunkedResult result;
  std::string data;
  std::string rest;  // what the decoder left unread
};

Decoded decode(const std::string& bytes, uint64_t limit = 1 << 20) {
  StringSource source(bytes);
  Decoded decoded;
  decoded.result = read_chunked_body(source, limit, decoded.data);
  decoded.rest = source.rest();
  return decoded;
}

void expect_complete(const std::string& bytes, const std::string& data) {
  const Decoded decoded = decode(bytes + "NEXT");
  EXPECT_EQ(decoded.result.status, ChunkedStatus::complete) << bytes;
  EXPECT_EQ(decoded.data, data) << bytes;
  EXPECT_EQ(decoded.rest, "NEXT") << bytes;
}

void expect_malformed(const std::string& bytes) {
  const Decoded decoded = decode(bytes);
  EXPECT_EQ(decoded.result.status, ChunkedStatus::malformed) << bytes;
  EXPECT_NE(decoded.result.problem, nullptr) << bytes;
}

TEST(ChunkedBody, ReadsChunksAndStopsAtTheBodysEnd) {
  expect_complete("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world");
  expect_complete("0\r\n\r\n", "");
  // Hex in either case.
  expect_complete("A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij");
}

// RFC 9112 7.1: chunk-size = 1*HEXDIG. Poco read at most 8 digits and ended the body
// quietly at the ninth, and what followed was served as a request of its own.
TEST(ChunkedBody, LeadingZerosOfAnyLengthAreOneSize) {
  expect_complete("00000008F\r\n" + std::string(0x8F, 'x') + "\r\n0\r\n\r\n",
                  std::string(0x8F, 'x'));
  expect_complete(std::string(200, '0') + "3\r\nabc\r\n" + std::string(40, '0') + "\r\n\r\n",
                  "abc");
}

TEST(ChunkedBody, ExtensionsAreSkippedAndTrailersDropped) {
  expect_complete("3;name=value\r\nabc\r\n3 ; a ; b=\"q s\"\r\ndef\r\n0;last\r\n\r\n", "abcdef");
  expect_complete("3\r\nabc\r\n0\r\nChecksum: 1234\r\nX-Other:\t v \r\n\r\n", "abc");
}

TEST(ChunkedBody, EveryFramingMistakeIsRefused) {
  expect_malformed("zGET /smuggled HTTP/1.1\r\n\r\n");  // not a size
  expect_malformed("\r\n");                             // no size at all
  expect_malformed("-5\r\nhello\r\n0\r\n\r\n");
  expect_malformed("0x5\r\nhello\r\n0\r\n\r\n");
  expect_malformed("5 x\r\nhello\r\n0\r\n\r\n");  // junk after the size
  expect_malformed("5\rhello\r\n0\r\n\r\n");      // CR without LF
  // A bare LF, which the request head may end a line with, anywhere in chunk framing
  // (RFC 9112 7.1): after a size, after data, closing the trailer, after a trailer field.
  expect_malformed("5\nhello\r\n0\r\n\r\n");
  expect_malformed("5;ext\nhello\r\n0\r\n\r\n");
  expect_malformed("5\r\nhello\n0\r\n\r\n");
  expect_malformed("5\r\nhello\r\n0\n\r\n");
  expect_malformed("5\r\nhello\r\n0\r\n\n");
  expect_malformed("0\r\nX: v\n\r\n");
  expect_malformed("5\r\nhello!\r\n0\r\n\r\n");         // data longer than its size
  expect_malformed("5;ext\x01\r\nhello\r\n0\r\n\r\n");  // control byte
  expect_malformed("5;" + std::string(2000, 'e') + "\r\nhello\r\n0\r\n\r\n");
  expect_malformed(std::string(1025, '0') + "\r\n\r\n");
  expect_malformed("0\r\nGET /smuggled HTTP/1.1\r\n\r\n");  // a trailer that is no field
  expect_malformed("0\r\n: no name\r\n\r\n");
  expect_malformed("0\r\nX: " + std::string(17000, 'v') + "\r\n\r\n");
}

TEST(ChunkedBody, AnEndBeforeTheLastChunkIsTruncation) {
  for (const std::string bytes : {"", "5", "5\r", "5\r\nhel", "5\r\nhello", "5\r\nhello\r\n",
                                  "0\r\n", "0\r\nX: y\r\n", "5;ext"}) {
    EXPECT_EQ(decode(bytes).result.status, ChunkedStatus::truncated) << bytes;
  }
  // What arrived before the end is kept; the caller decides what to make of it.
  EXPECT_EQ(decode("5\r\nhel").data, "hel");
}

TEST(ChunkedBody, TheLimitIsTheDataAndAHugeSizeIsOverIt) {
  EXPECT_EQ(decode("5\r\nhello\r\n0\r\n\r\n", 5).result.status, ChunkedStatus::complete);
  EXPECT_EQ(decode("5\r\nhello\r\n1\r\n!\r\n0\r\n\r\n", 5).result.status, ChunkedStatus::too_large);
  // Judged from the size line, before any of the data is read or stored.
  const Decoded huge = decode("FFFFFFFFFFFFFFFF\r\n", 1 << 20);
  EXPECT_EQ(huge.result.status, ChunkedStatus::too_large);
  EXPECT_TRUE(huge.data.empty());
  EXPECT_EQ(decode("1" + std::string(16, '0') + "\r\n").result.status, ChunkedStatus::too_large);
}

}  // namespace
}  // namespace agentrt::server
