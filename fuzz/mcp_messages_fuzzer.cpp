// The mcp plugin's reading of what a server writes (plugins/mcp/message_reader.h), over
// each of its framings; the input's first byte picks one (modulo 3), the rest is what
// the server wrote, cut into reads as CutInput says (fuzz_support.h):
//   0  stdio: one message a line (LineReader, with a small line limit here so that
//      lines past it are common);
//   1  streamable HTTP, text/event-stream: EventStreamReader's messages, `id:` and
//      `retry:`;
//   2  streamable HTTP, application/json: one message or a batch.
// Besides not crashing:
//   - the lines are exactly the input's complete lines, a CR before the LF dropped,
//     empty ones and those past the limit left out, whatever the cut; no piece of a
//     line past the limit is read as a line;
//   - the event stream gives the same messages, last event id and retry whatever the
//     cut; the id holds no NUL, CR or LF, and the retry is none or 0 to 999,999,999 ms;
//   - each message is classified as its keys say, and the answer the client writes to
//     a server's request is a JSON-RPC 2.0 response with the request's id.
#include "fuzz/fuzz_support.h"
#include "mcp/message_reader.h"
#include "mcp/transport.h"

#include <agentrt/plugin.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace agentrt::mcp;
using agentrt::fuzz::CutInput;
using nlohmann::json;

constexpr std::size_t kMaxLine = 256;

void check_message(const std::string& text, bool require_version) {
  const ServerMessage read = read_message(text, require_version);
  const json& message = read.message;
  switch (read.kind) {
    case MessageKind::ignored:
      FUZZ_CHECK(message.is_null(), "an ignored text keeps nothing");
      return;
    case MessageKind::request: {
      FUZZ_CHECK(message.contains("method") && message.contains("id"), "a request has both");
      const json reply = answer_to_server_request(message);
      FUZZ_CHECK(reply["jsonrpc"] == "2.0" && reply["id"] == message["id"] &&
                     (reply.contains("result") != reply.contains("error")),
                 "a request is answered with its id");
      reply.dump();  // throws on text that could not be sent
      return;
    }
    case MessageKind::notification:
      FUZZ_CHECK(message.contains("method") && !message.contains("id"), "a notification");
      return;
    case MessageKind::response:
      FUZZ_CHECK(message.contains("id") && !message.contains("method"), "a response");
      message["id"].dump();  // the key a waiting request is found by
      return;
    case MessageKind::other:
      FUZZ_CHECK(message.is_object() && !message.contains("id") && !message.contains("method"),
                 "neither request nor response");
      return;
  }
}

std::vector<std::string> expected_lines(std::string_view bytes) {
  std::vector<std::string> lines;
  for (std::size_t end; (end = bytes.find('\n')) != std::string_view::npos;) {
    std::string_view line = bytes.substr(0, end);
    bytes.remove_prefix(end + 1);
    if (line.size() > kMaxLine) continue;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

void check_stdio(const CutInput& input) {
  LineReader reader(kMaxLine);
  std::vector<std::string> lines;
  for (std::string_view piece : input.pieces())
    reader.feed(piece, [&](const std::string& line) { lines.push_back(line); });
  FUZZ_CHECK(lines == expected_lines(input.body), "the lines are the input's lines");
  for (const std::string& line : lines) check_message(line, /*require_version=*/true);
}

struct Events {
  std::vector<std::string> messages;
  std::string last_event_id;
  long retry_ms = -1;
  bool failed = false;
  bool operator==(const Events& o) const {
    return messages == o.messages && last_event_id == o.last_event_id && retry_ms == o.retry_ms &&
           failed == o.failed;
  }
};

Events read_events(const std::vector<std::string_view>& pieces) {
  EventStreamReader reader;
  Events events;
  const auto take = [&](const std::string& message) { events.messages.push_back(message); };
  try {
    for (std::string_view piece : pieces) reader.feed(piece, take);
    reader.finish(take);
  } catch (const agentrt::sdk::Error&) {
    events.failed = true;
  }
  events.last_event_id = reader.last_event_id();
  events.retry_ms = reader.retry_ms();
  return events;
}

void check_event_stream(const CutInput& input) {
  const Events cut = read_events(input.pieces());
  FUZZ_CHECK(cut == read_events({input.body}), "the cut changes nothing");
  FUZZ_CHECK(cut.last_event_id.find_first_of(std::string("\0\r\n", 3)) == std::string::npos,
             "an event id is one line without NUL");
  FUZZ_CHECK(cut.retry_ms >= -1 && cut.retry_ms < 1000000000, "a retry is in range");
  for (const std::string& message : cut.messages) check_message(message, false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const CutInput input = CutInput::from(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      check_stdio(input);
      break;
    case 1:
      check_event_stream(input);
      break;
    case 2:
      read_json_answer(std::string(input.body), [](const std::string& message) {
        check_message(message, /*require_version=*/false);
      });
      break;
  }
  return 0;
}
