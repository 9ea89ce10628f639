#include "tests/fakes/fake_connection.h"

#include <Poco/Exception.h>

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace agentrt::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Long enough for the client to read one half of a cut write before the other half
// arrives, short enough to loop over every offset of a stream.
constexpr auto kSplitPause = 2ms;
// Before a reset, time for the client to read what was sent: a RST may otherwise
// throw away bytes still waiting in the client's socket buffer.
constexpr auto kDrainBeforeReset = 50ms;

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 529:
      return "Overloaded";
    default:
      return "Status";
  }
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Parses the request line and headers of `head` (without the blank line).
RecordedRequest parse_head(const std::string& head) {
  RecordedRequest request;
  size_t line_end = head.find("\r\n");
  std::string first = head.substr(0, line_end);
  size_t sp1 = first.find(' ');
  size_t sp2 = first.find(' ', sp1 + 1);
  request.method = first.substr(0, sp1);
  request.path = first.substr(sp1 + 1, sp2 - sp1 - 1);
  while (line_end != std::string::npos) {
    size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    std::string line = head.substr(start, line_end - start);
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    request.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return request;
}

StreamContext context_for(const RecordedRequest& request, const Reply& reply) {
  StreamContext ctx;
  nlohmann::json body = request.json();
  ctx.model = body.is_object() ? body.value("model", "") : "";
  if (body.is_object() && body.contains("stream_options") && body["stream_options"].is_object())
    ctx.include_usage = body["stream_options"].value("include_usage", false);
  ctx.eol = reply.crlf ? "\r\n" : "\n";
  return ctx;
}

}  // namespace

Connection::Connection(FakeServer& server, Poco::Net::StreamSocket socket)
    : server_(server), socket_(std::move(socket)) {}

void Connection::run() {
  try {
    while (std::optional<RecordedRequest> request = read_request()) {
      Reply reply = server_.reply_for(*request);
      bool keep = respond(*request, reply);
      if (!keep || reply.close_after || lower(request->header("connection")) == "close") break;
    }
    socket_.close();
  } catch (const Poco::Exception&) {
    // The client went away mid-read or mid-write; nothing left to serve.
  } catch (const std::exception&) {
    // A request the fake cannot parse, or a test's responder that threw: drop the
    // connection rather than the whole test process.
  }
}

bool Connection::receive_more() {
  char chunk[16 * 1024];
  while (!server_.stopping()) {
    if (!socket_.poll(Poco::Timespan(0, 50 * 1000), Poco::Net::Socket::SELECT_READ)) continue;
    int n = socket_.receiveBytes(chunk, sizeof chunk);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  return false;
}

std::optional<RecordedRequest> Connection::read_request() {
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos)
    if (!receive_more()) return std::nullopt;
  RecordedRequest request = parse_head(buffer_.substr(0, head_end));
  buffer_.erase(0, head_end + 4);
  if (lower(request.header("expect")) == "100-continue" &&
      !send_raw("HTTP/1.1 100 Continue\r\n\r\n"))
    return std::nullopt;
  size_t length = 0;
  std::string declared = request.header("content-length");
  if (!declared.empty()) length = std::stoul(declared);
  while (buffer_.size() < length)
    if (!receive_more()) return std::nullopt;
  request.body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  return request;
}

bool Connection::respond(const RecordedRequest& request, const Reply& reply) {
  reply_ = &reply;
  body_offset_ = 0;
  aborted_ = false;
  switch (reply.kind) {
    case Reply::Kind::fail:
      return send_failure(reply);
    case Reply::Kind::hang_before_headers:
      return hang();
    default:
      return send_stream(request, reply);
  }
}

bool Connection::send_failure(const Reply& reply) {
  std::string body = server_.dialect().error_body(reply);
  std::string head =
      "HTTP/1.1 " + std::to_string(reply.status) + " " + reason_phrase(reply.status) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n";
  for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
  return send_raw(head + "\r\n" + body);
}

bool Connection::send_stream(const RecordedRequest& request, const Reply& reply) {
  const Dialect& dialect = server_.dialect();
  StreamContext ctx = context_for(request, reply);
  std::string head = "HTTP/1.1 200 OK\r\nContent-Type: " + dialect.stream_content_type() +
                     "\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\n";
  for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
  // Cut before the head goes out: for a large answer the cutting takes long enough on a
  // loaded machine (more so under the sanitizers) to pass a test's stall limit, which
  // would then measure the fake instead of agentd.
  std::vector<std::string> fragments = split_utf8(reply.text, reply.deltas);
  if (!send_raw(head + "\r\n")) return false;
  if (reply.kind == Reply::Kind::hang_after_headers && reply.after_deltas <= 0) return hang();

  // The tool calls' events count as deltas after the text's, so that a fault can
  // strike inside a call.
  const std::vector<std::string> calls = dialect.tool_calls(ctx, reply);
  const size_t deltas = fragments.size() + calls.size();
  const size_t fault_at =
      reply.kind == Reply::Kind::answer
          ? std::string::npos
          : std::min(deltas, static_cast<size_t>(std::max(0, reply.after_deltas)));
  if (!send_events(dialect.opening(ctx, reply))) return false;
  for (size_t i = 0; i <= deltas; ++i) {
    if (i == fault_at)
      if (std::optional<bool> keep = send_fault(ctx, reply)) return *keep;
    if (i == deltas) break;
    if (i >= fragments.size()) {
      if (!send_event(calls[i - fragments.size()])) return false;
      continue;
    }
    if (reply.delta_delay > 0ms && !pause(reply.delta_delay)) return false;
    if (!send_event(dialect.delta(ctx, fragments[i]))) return false;
  }
  if (!send_events(dialect.closing(ctx, reply))) return false;
  server_.note_stream_size(body_offset_);
  if (reply.hold_open) return hang();
  return end_body();
}

std::optional<bool> Connection::send_fault(const StreamContext& ctx, const Reply& reply) {
  const Dialect& dialect = server_.dialect();
  switch (reply.kind) {
    case Reply::Kind::hang_after_headers:
      return hang();
    case Reply::Kind::reset:
      reset();
      return false;
    case Reply::Kind::malformed:  // and the stream carries on, as a buggy server's would
      if (!send_event(dialect.malformed(ctx))) return false;
      return std::nullopt;
    case Reply::Kind::error_event:
      return send_events(dialect.error_event(ctx, reply)) && end_body();
    case Reply::Kind::truncate:
      return end_body();
    default:
      return std::nullopt;
  }
}

bool Connection::send_events(const std::vector<std::string>& events) {
  for (const std::string& event : events)
    if (!send_event(event)) return false;
  return true;
}

// One write per event (one HTTP chunk), cut wherever the reply's split_at says.
bool Connection::send_event(const std::string& event) {
  size_t done = 0;
  while (done < event.size()) {
    size_t end = event.size();
    for (size_t cut : reply_->split_at)
      if (cut > body_offset_ + done && cut < body_offset_ + end) end = cut - body_offset_;
    size_t length = end - done;
    char size_line[32];
    std::snprintf(size_line, sizeof size_line, "%zx\r\n", length);
    if (!send_raw(size_line + event.substr(done, length) + "\r\n")) return false;
    done = end;
    if (done < event.size() && !pause(kSplitPause)) return false;
  }
  body_offset_ += event.size();
  return true;
}

bool Connection::end_body() {
  return send_raw("0\r\n\r\n");
}

bool Connection::send_raw(const std::string& bytes) {
  size_t sent = 0;
  try {
    while (sent < bytes.size()) {
      int n = socket_.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent),
                                MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  } catch (const Poco::Exception&) {
  }
  if (sent == bytes.size()) return true;
  abort_noted();
  return false;
}

bool Connection::client_gone() {
  try {
    if (!socket_.poll(Poco::Timespan(0), Poco::Net::Socket::SELECT_READ)) return false;
    char byte;
    // A readable socket with nothing to read is a closed one; real bytes would be a
    // pipelined request, which is left for later.
    return socket_.receiveBytes(&byte, 1, MSG_PEEK) <= 0;
  } catch (const Poco::Exception&) {
    return true;  // reset by the client
  }
}

bool Connection::pause(std::chrono::milliseconds duration) {
  const auto until = Clock::now() + duration;
  for (;;) {
    if (server_.stopping()) return false;
    if (client_gone()) {
      abort_noted();
      return false;
    }
    auto left = until - Clock::now();
    if (left <= Clock::duration::zero()) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, 5ms));
  }
}

bool Connection::hang() {
  while (pause(1h)) {
  }
  return false;
}

void Connection::abort_noted() {
  if (aborted_) return;
  aborted_ = true;
  server_.note_abort();
}

void Connection::reset() {
  if (!pause(kDrainBeforeReset)) return;
  try {
    socket_.setLinger(true, 0);  // close() now sends RST instead of FIN
    socket_.close();
  } catch (const Poco::Exception&) {
  }
}

}  // namespace agentrt::test
