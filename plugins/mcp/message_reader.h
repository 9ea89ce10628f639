// What the MCP client reads from a server, apart from the transports that carry it:
// JSON-RPC 2.0 messages, framed one a line on stdio, or as the events of a streamable
// HTTP answer (with its `id:` and `retry:` fields) or one application/json body. The
// transports feed bytes in whatever pieces the pipe or libcurl hands over; these
// classes turn them into messages, and fuzz/mcp_messages_fuzzer.cpp holds them to
// that whatever the bytes and the cut.
#pragma once

#include "common/line_splitter.h"
#include "common/sse_parser.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace agentrt::mcp {

// What one message is to the client.
enum class MessageKind {
  ignored,       // not a JSON-RPC message the client can use
  request,       // the server asks something ("method" and "id")
  notification,  // the server says something ("method", no "id")
  response,      // an answer to a request of ours ("id", no "method")
  other,         // an object that is none of these
};

struct ServerMessage {
  MessageKind kind = MessageKind::ignored;
  nlohmann::json message;  // the message, when it is not ignored
};

// Reads one message's text. `require_version`: only an object with "jsonrpc":"2.0" is
// a message (stdio, where a server's stray output lands on the same pipe); over HTTP
// any object is taken.
ServerMessage read_message(std::string_view text, bool require_version);

// Splits a pipe's bytes into lines: LF ends a line, a CR before it is dropped, empty
// lines are skipped. A line longer than `max_line` bytes (a CR before its LF counted)
// is dropped whole, up to its LF, so that no piece of it is read as a message of its
// own.
class LineReader {
 public:
  using LineFn = std::function<void(const std::string& line)>;
  explicit LineReader(std::size_t max_line) : max_line_(max_line) {}
  void feed(std::string_view bytes, const LineFn& on_line);

 private:
  std::size_t max_line_;
  std::string buffer_;          // the line begun and not yet ended
  bool dropping_line_ = false;  // inside a line too long: skipping to its end
};

// A streamable HTTP answer of content type text/event-stream: each event's data is a
// message; its `id:` is where a resumption takes the stream up (Last-Event-ID), its
// `retry:` how long to wait before.
class EventStreamReader {
 public:
  using MessageFn = std::function<void(const std::string& text)>;
  // May throw sdk::Error(UPSTREAM) for a line past 16 MiB (common/line_splitter.h).
  void feed(std::string_view bytes, const MessageFn& on_message);
  // The stream ended: an event whose lines all came but not its blank line.
  void finish(const MessageFn& on_message);
  // Ready for the stream that takes this one up: the same `id:` and `retry:` until
  // it sends its own.
  void restart();

  const std::string& last_event_id() const { return last_event_id_; }
  long retry_ms() const { return retry_ms_; }  // -1: the server named none

 private:
  void on_field(std::string_view line);

  providers::SseParser events_;
  // The `id:` and `retry:` lines, which the SSE parser passes over.
  providers::LineSplitter fields_{/*cr_ends_line=*/true};
  std::string last_event_id_;
  long retry_ms_ = -1;
};

// An application/json answer: one message, or a batch of them (an array).
void read_json_answer(const std::string& body, const EventStreamReader::MessageFn& on_message);

}  // namespace agentrt::mcp
