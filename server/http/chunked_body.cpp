#include "server/http/chunked_body.h"

#include <algorithm>
#include <cstdio>

namespace agentrt::server {

namespace {

// A size line's bytes, digits and extensions together; the trailer section's bytes.
// Neither counts toward the body's limit, so each has its own.
constexpr std::size_t kMaxSizeLine = 1024;
constexpr std::size_t kMaxTrailer = 16 * 1024;
// 16 hex digits fill 64 bits; more (past leading zeros) is past any limit.
constexpr int kMaxSignificantDigits = 16;

int hex_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_tchar(int c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c > 0 && std::char_traits<char>::find("!#$%&'*+-.^_`|~", 15, static_cast<char>(c));
}

// A byte that may stand inside a field value or an extension: no control byte but HTAB.
bool is_text(int c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

class Decoder {
 public:
  Decoder(ChunkedSource& source, uint64_t limit, std::string& out)
      : source_(source), limit_(limit), out_(out) {}

  ChunkedResult run() {
    for (;;) {
      uint64_t size = 0;
      if (!size_line(size)) return result_;
      if (size == 0) break;
      if (size > limit_ - std::min<uint64_t>(limit_, out_.size()))
        return {ChunkedStatus::too_large};
      if (!data(static_cast<std::size_t>(size)) || !end_of_data()) return result_;
    }
    if (!trailer()) return result_;
    return {ChunkedStatus::complete};
  }

 private:
  int next() { return source_.next_byte(); }

  bool fail(const char* problem) {
    result_ = {ChunkedStatus::malformed, problem};
    return false;
  }
  bool ended() {
    result_ = {ChunkedStatus::truncated};
    return false;
  }

  // `c` is CR or LF: the line ends with the LF after a CR. RFC 9112 lets a recipient take
  // a bare LF for the start line and header fields (2.2), not for chunk framing (7.1);
  // where two parsers disagree on that, one body can be read as two requests.
  bool line_end(int c) {
    if (c == '\n') return fail("a chunk line ended by LF alone (chunk framing takes CRLF)");
    c = next();
    if (c == EOF) return ended();
    return c == '\n' || fail("a CR not followed by LF");
  }

  // chunk-size [ chunk-ext ] CRLF
  bool size_line(uint64_t& size) {
    std::size_t length = 0;
    int significant = 0;
    int c = next();
    for (; hex_value(c) >= 0; c = next()) {
      if (++length > kMaxSizeLine) return fail("a chunk size line over 1024 bytes");
      if (significant > 0 || c != '0') ++significant;
      if (significant > kMaxSignificantDigits) {
        result_ = {ChunkedStatus::too_large};
        return false;
      }
      size = size * 16 + static_cast<uint64_t>(hex_value(c));
    }
    if (c == EOF) return ended();
    if (length == 0) return fail("a chunk size that is not hex digits");
    while (c == ' ' || c == '\t') c = next();  // BWS before an extension
    if (c == ';') {
      for (c = next(); c != '\r' && c != '\n'; c = next()) {
        if (c == EOF) return ended();
        if (!is_text(c)) return fail("a control byte in a chunk extension");
        if (++length > kMaxSizeLine) return fail("a chunk size line over 1024 bytes");
      }
    }
    if (c == EOF) return ended();
    if (c != '\r' && c != '\n') return fail("a chunk size followed by other than an extension");
    return line_end(c);
  }

  bool data(std::size_t size) {
    const std::size_t at = out_.size();
    out_.resize(at + size);
    std::size_t got = 0;
    while (got < size) {
      const std::size_t n = source_.read_some(out_.data() + at + got, size - got);
      if (n == 0) {
        out_.resize(at + got);
        return ended();
      }
      got += n;
    }
    return true;
  }

  // The CRLF that must follow a chunk's data.
  bool end_of_data() {
    const int c = next();
    if (c == EOF) return ended();
    if (c != '\r' && c != '\n') return fail("chunk data longer than its size");
    return line_end(c);
  }

  // *( field-line CRLF ) CRLF: each line a field, read and dropped.
  bool trailer() {
    std::size_t length = 0;
    for (;;) {
      int c = next();
      if (c == '\r' || c == '\n') return line_end(c);
      bool named = false;
      for (; is_tchar(c); c = next(), named = true) {
        if (++length > kMaxTrailer) return fail("a trailer section over 16384 bytes");
      }
      if (c == EOF) return ended();
      if (!named || c != ':') return fail("a trailer line that is not a field");
      for (c = next(); c != '\r' && c != '\n'; c = next()) {
        if (c == EOF) return ended();
        if (!is_text(c)) return fail("a control byte in a trailer field");
        if (++length > kMaxTrailer) return fail("a trailer section over 16384 bytes");
      }
      if (!line_end(c)) return false;
    }
  }

  ChunkedSource& source_;
  const uint64_t limit_;
  std::string& out_;
  ChunkedResult result_{ChunkedStatus::complete};
};

}  // namespace

ChunkedResult read_chunked_body(ChunkedSource& source, uint64_t limit, std::string& out) {
  return Decoder(source, limit, out).run();
}

}  // namespace agentrt::server
