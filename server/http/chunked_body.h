// The chunked transfer coding of a request body (RFC 9112 7.1), decoded strictly.
// Poco's decoder ended a body quietly at a size line it could not read (a ninth hex
// digit, leading zeros included, or any other byte) and left the connection open, so
// the rest of the body was served as the next request: one request smuggled inside
// another. Here every framing byte is checked, and a body that is not framed exactly
// is an error that closes the connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace agentrt::server {

// Where the coded body comes from. Reads never go past what they are asked for, so
// the bytes after the body (a pipelined request) stay where they are.
class ChunkedSource {
 public:
  virtual ~ChunkedSource() = default;
  // The next byte, or EOF at the connection's end.
  virtual int next_byte() = 0;
  // Up to `length` bytes (at least one unless the connection ended: then 0).
  virtual std::size_t read_some(char* buffer, std::size_t length) = 0;
};

enum class ChunkedStatus {
  complete,   // the last chunk and the trailer section were read
  too_large,  // the data would pass the limit
  malformed,  // a framing byte is wrong: `problem` says which
  truncated,  // the connection ended inside the body
};

struct ChunkedResult {
  ChunkedStatus status;
  const char* problem = nullptr;  // set when malformed
};

// Appends the body's data to `out`, at most `limit` bytes of it. Trailer fields are
// read and dropped; chunk extensions are skipped. A bare LF ends a line, as it does
// in the request head.
ChunkedResult read_chunked_body(ChunkedSource& source, uint64_t limit, std::string& out);

}  // namespace agentrt::server
