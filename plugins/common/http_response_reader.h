// Reads one HTTP/1.1 response from the bytes of a connection, in whatever pieces they
// arrive: the status line and fields (skipping interim 1xx responses), then the body
// by its framing (Content-Length, chunked, or up to the end of the connection), and
// says whether the connection may carry another request.
//
// Strict where a response could be read two ways: a malformed status line, field or
// chunk size, or a Content-Length with two values, is an error rather than a guess.
#pragma once

#include "common/http_response.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace agentrt::providers {

// The response cannot be read; its message names what was wrong.
class HttpProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HttpResponseReader {
 public:
  // Body bytes, in pieces that may be views into the fed buffer.
  using BodySink = std::function<void(std::string_view)>;
  explicit HttpResponseReader(BodySink on_body) : on_body_(std::move(on_body)) {}

  // Consumes `bytes`; body bytes go to the sink as they are framed. Bytes after the
  // end of the response are dropped, and the connection is then not reusable: nothing
  // was asked for them. Throws HttpProtocolError, and whatever the sink throws.
  void feed(std::string_view bytes);
  // The connection ended: completes a body read to the end of the connection, and
  // throws HttpProtocolError for any other response not yet complete.
  void end_of_input();

  bool head_done() const { return state_ != State::head; }
  bool done() const { return state_ == State::done; }
  long status() const { return status_; }
  HttpHeaders& headers() { return headers_; }
  // Done, framed by the message itself, HTTP/1.1 and not "Connection: close".
  bool reusable() const;

 private:
  enum class State {
    head,
    length_body,
    chunk_size,
    chunk_data,
    chunk_data_end,
    trailer,
    close_body,
    done
  };

  size_t take_head(std::string_view bytes);
  void parse_head();
  void parse_status_line(std::string_view line);
  void parse_field(std::string_view line);
  void choose_framing();
  size_t take_body(std::string_view bytes);
  size_t take_line(std::string_view bytes, size_t limit);
  void on_chunk_size_line(std::string_view line);
  void on_trailer_line(std::string_view line);

  BodySink on_body_;
  State state_ = State::head;
  std::string pending_;  // a head, or a chunk-size or trailer line, not yet complete
  long status_ = 0;
  bool http11_ = false;
  bool close_ = false;
  HttpHeaders headers_;
  uint64_t remaining_ = 0;  // of the Content-Length body or of the current chunk
  size_t trailer_bytes_ = 0;
};

}  // namespace agentrt::providers
