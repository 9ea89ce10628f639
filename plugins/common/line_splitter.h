// Turns a byte stream that arrives in arbitrary pieces into whole lines. Upstreams
// split their output wherever the network does: inside a line, inside a CRLF pair,
// inside a multi-byte UTF-8 character. Bytes are buffered until a line is complete,
// so a decoder only ever sees whole lines and never a partial character. A line that
// arrives within one read is handed on as a view into that read; only a line spanning
// reads is gathered in a buffer, which keeps its capacity from line to line.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace agentrt::providers {

class LineSplitter {
 public:
  using LineFn = std::function<void(std::string_view line)>;

  // `cr_ends_line`: SSE treats a lone CR as a line end; NDJSON does not (only LF,
  // with one trailing CR stripped).
  explicit LineSplitter(bool cr_ends_line) : cr_ends_line_(cr_ends_line) {}

  // Hands every line completed by `bytes` to `on_line`, without its terminator.
  // Throws Error(UPSTREAM) when one line grows beyond a sane size.
  void feed(std::string_view bytes, const LineFn& on_line);

  // True when bytes of an unfinished line are buffered.
  bool has_partial_line() const { return !partial_.empty(); }

 private:
  // The next CR or LF that ends a line in [from, end), or nullptr.
  const char* find_line_end(const char* from, const char* end) const;
  void take_line(std::string_view piece, const LineFn& on_line);

  bool cr_ends_line_;
  bool skip_lf_ = false;  // the previous piece ended in a CR that ended a line
  std::string partial_;
};

}  // namespace agentrt::providers
