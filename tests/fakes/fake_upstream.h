// Fake LLM upstreams for tests: one HTTP/1.1 server per vendor on 127.0.0.1:<free
// port>, speaking that vendor's real wire format (docs: shared spec
// provider-wire-formats.md) including its awkward parts, recording every request, and
// scriptable per request to misbehave the ways real services do.
//
//   FakeUpstream fake(Vendor::openai);
//   fake.set_default(Reply::answer("Hello there", 4));        // every request
//   fake.enqueue(Reply::failure(429).with_header("retry-after", "2"));  // next one only
//   ... point the provider's base_url at fake.base_url(), run it ...
//   fake.last_request().json()["model"];                       // what the client sent
//   fake.wait_for_client_abort(500ms);                          // the client hung up
//
// Which reply a request gets: the responder if one is set, else the next queued
// reply, else the default (Reply::answer("Hello, world!")). Before that, the fake
// refuses what the real service refuses, with the vendor's status and error body and
// without using up a queued reply: an unknown path (404); a missing key (OpenAI: no
// `Authorization`; Anthropic: no `x-api-key`; any vendor after require_key: a
// different key) (401); a body that is not a JSON object with `model` and `messages`
// (400); for Anthropic a missing `anthropic-version` or `max_tokens`, a "system" role
// in `messages`, or a tool_result and a tool_use of two consecutive messages that do
// not answer each other (400); for Ollama a `content` that is not a string or an image
// that is not bare base64 (400). Only streaming requests are implemented
// (`"stream":true`; Ollama: absent or true); others get 400.
//
// Streams use chunked transfer encoding, one HTTP chunk per write; every event (or
// NDJSON line) is written on its own, so a delay or a cut lands between or inside
// events exactly as asked. Thread-safe; the destructor ends every hang and joins
// every connection thread.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::test {

enum class Vendor { openai, anthropic, ollama };

// The vendor's plugin name: "openai", "anthropic", "ollama".
const char* vendor_name(Vendor vendor);

struct FakeUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_input_tokens = 0;      // Anthropic only
  int64_t cache_creation_input_tokens = 0;  // Anthropic only
};

// One tool call a reply makes, streamed in the vendor's form after the reply's text.
struct FakeToolCall {
  std::string id;  // the vendor's id (call_..., toolu_...); Ollama sends none
  std::string name;
  std::string arguments;  // the JSON text the model writes
  int fragments = 3;      // pieces the arguments stream in, where the vendor cuts them
};

// What the fake does with one request.
struct Reply {
  enum class Kind {
    answer,               // the whole stream: opening, deltas, finish, usage, terminator
    fail,                 // HTTP `status` with the vendor's error body
    hang_after_headers,   // 200 and headers (plus `after_deltas` deltas), then silence
    hang_before_headers,  // reads the request, never answers
    reset,                // after `after_deltas` deltas: a TCP reset (RST)
    malformed,            // after `after_deltas` deltas: an event with broken JSON, then
                          // the rest of the stream
    error_event,          // after `after_deltas` deltas: the vendor's mid-stream error
    truncate,             // after `after_deltas` deltas: the body ends cleanly, with no
                          // finish, usage or terminator
  };
  Kind kind = Kind::answer;

  std::string text = "Hello, world!";                 // the answer, cut into `deltas` deltas at
  int deltas = 3;                                     // UTF-8 character boundaries
  std::optional<FakeUsage> usage = FakeUsage{12, 5};  // nullopt: the stream has none
  std::string finish;          // the vendor's own finish word ("length", "max_tokens",
                               // "stop_sequence"...); "" = its normal end of turn
  bool crlf = false;           // end stream lines with CRLF instead of LF
  bool hold_open = false;      // after the stream's end marker, keep the response open
                               // (no final chunk) until the client leaves
  bool close_after = false;    // close the connection once the response is complete,
                               // unannounced, as a server whose keep-alive time ran out
  bool no_terminator = false;  // openai: end the body after the finish (and usage) chunks
                               // without "data: [DONE]", as some compatible servers do

  // Streamed after the text, in the vendor's form; a reply with calls ends with the
  // vendor's tool finish word ("tool_calls", "tool_use"; Ollama: "stop") unless
  // `finish` names another.
  std::vector<FakeToolCall> tool_calls;
  bool omit_tool_index = false;  // openai: tool-call chunks without "index", as some
                                 // compatible servers send them

  std::chrono::milliseconds delta_delay{0};  // waited before each delta (and each event
                                             // of the tool calls)
  std::vector<size_t> split_at;              // body byte offsets at which a write is cut in two;
                                             // a short pause follows each cut so the halves
                                             // arrive separately
  int after_deltas = 0;                      // for the faults that strike mid-stream;
                                             // past the text's deltas it counts the
                                             // events of the tool calls

  int status = 0;             // Kind::fail
  std::string error_type;     // vendor's error type/code, e.g. "rate_limit_error",
                              // "insufficient_quota", "overloaded_error"; "" = the
                              // vendor's usual one for the status
  std::string error_message;  // "" = the vendor's usual text
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers

  static Reply answer(std::string text, int deltas = 3);
  // Calls `calls` after `text` (which may be empty).
  static Reply calling(std::vector<FakeToolCall> calls, std::string text = "");
  static Reply failure(int status, std::string error_type = "", std::string message = "");
  static Reply hang_after_headers(int after_deltas = 0);
  static Reply hang_before_headers();
  static Reply reset_after(int deltas);
  static Reply malformed_after(int deltas);
  static Reply error_event_after(int deltas, std::string error_type = "", std::string message = "");
  static Reply truncated_after(int deltas);
  Reply& with_header(std::string name, std::string value);
};

struct RecordedRequest {
  std::string method;
  std::string path;                            // the request target as sent
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string header(const std::string& name) const;  // "" when absent; any case
  nlohmann::json json() const;  // the body parsed; a discarded value if not JSON
};

class FakeServer;

class FakeUpstream {
 public:
  explicit FakeUpstream(Vendor vendor);
  ~FakeUpstream();
  FakeUpstream(const FakeUpstream&) = delete;
  FakeUpstream& operator=(const FakeUpstream&) = delete;

  Vendor vendor() const;
  uint16_t port() const;
  // The provider's base_url: http://127.0.0.1:<port>, plus "/v1" for OpenAI (whose
  // base URLs conventionally include the version).
  std::string base_url() const;

  void require_key(std::string key);  // other keys (and none) get the vendor's 401
  void set_default(Reply reply);      // for requests with nothing queued
  void enqueue(Reply reply);          // for the next request, first in first out
  // Computes each request's reply; while set, queue and default are not used.
  void set_responder(std::function<Reply(const RecordedRequest&)> responder);

  std::vector<RecordedRequest> requests() const;  // every request, in arrival order
  RecordedRequest last_request() const;           // throws when there was none
  size_t request_count() const;
  bool wait_for_requests(size_t count, std::chrono::milliseconds timeout) const;

  // Responses the client walked away from (closed or reset the connection) before
  // the fake had finished them, including hangs.
  size_t client_aborts() const;
  bool wait_for_client_abort(std::chrono::milliseconds timeout, size_t count = 1) const;
  size_t connections_accepted() const;
  // Body bytes of the last stream the fake sent to its end, so a test can cut a
  // stream at each of its offsets.
  size_t last_stream_size() const;

 private:
  std::unique_ptr<FakeServer> server_;
};

// The text fragments a Reply with this `text` and `deltas` streams, in order (cut at
// UTF-8 character boundaries into pieces of about equal length).
std::vector<std::string> delta_fragments(const std::string& text, int deltas);

// A local TCP port nothing listens on, for "connection refused".
uint16_t unused_local_port();

}  // namespace agentrt::test
