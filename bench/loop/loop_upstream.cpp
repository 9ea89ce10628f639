#include "loop_upstream.h"

#include "wire_stamps.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace loop_bench {
namespace {

using nlohmann::json;

constexpr const char* kEchoed = "Echo: loop bench";
// A call whose response is still being written: see respond().
constexpr int64_t kUnstamped = INT64_MAX;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "loop_bench upstream: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

// One SSE event as one HTTP chunk, as OpenAI sends them.
std::string sse_chunk(const std::string& data) {
  const std::string event = "data: " + data + "\n\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", event.size());
  return size + event + "\r\n";
}

json chunk_json(json choices, json usage) {
  return {{"id", "chatcmpl-loop"},           {"object", "chat.completion.chunk"},
          {"created", 1700000000},           {"model", "loop-model"},
          {"system_fingerprint", "fp_loop"}, {"choices", std::move(choices)},
          {"usage", std::move(usage)}};
}

std::string choice(json delta, const char* finish) {
  json c = {{"index", 0},
            {"delta", std::move(delta)},
            {"logprobs", nullptr},
            {"finish_reason", finish ? json(finish) : json(nullptr)}};
  return sse_chunk(chunk_json(json::array({c}), nullptr).dump());
}

// The head, `body` (the choice chunks), the usage chunk when asked for, and [DONE].
std::string stream(const std::string& body, bool usage, int completion_tokens) {
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
  out += body;
  if (usage)
    out += sse_chunk(chunk_json(json::array(), {{"prompt_tokens", 8},
                                                {"completion_tokens", completion_tokens},
                                                {"total_tokens", 8 + completion_tokens}})
                         .dump());
  out += sse_chunk("[DONE]");
  out += "0\r\n\r\n";
  return out;
}

std::string text_answer(bool usage) {
  std::string body =
      choice({{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}}, nullptr);
  body += choice({{"content", "done"}}, nullptr);
  body += choice(json::object(), "stop");
  return stream(body, usage, 1);
}

// A call to `name` with its arguments in two fragments, as OpenAI streams a call.
std::string tool_call(const std::string& id, const std::string& name, bool usage) {
  std::string body =
      choice({{"role", "assistant"}, {"content", nullptr}, {"refusal", nullptr}}, nullptr);
  json open = {{"index", 0},
               {"id", id},
               {"type", "function"},
               {"function", {{"name", name}, {"arguments", ""}}}};
  body += choice({{"tool_calls", json::array({open})}}, nullptr);
  for (const char* piece : {R"({"message":)", R"( "loop bench"})"})
    body += choice(
        {{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", piece}}}}})}},
        nullptr);
  body += choice(json::object(), "tool_calls");
  return stream(body, usage, 12);
}

std::string error_response(int status, const char* reason) {
  const std::string body = std::string(R"({"error":{"message":")") + reason + R"("}})";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

bool send_all(int fd, const std::string& bytes) {
  for (size_t at = 0; at < bytes.size();) {
    const ssize_t sent = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    at += static_cast<size_t>(sent);
  }
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A complete request's head size and body length in `in`; false while incomplete.
struct Framing {
  size_t head = 0;
  size_t body = 0;
  bool expects_continue = false;
};
bool frame(const std::string& in, Framing* f) {
  const size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const std::string head = lower(in.substr(0, end));
  const size_t length = head.find("\r\ncontent-length:");
  f->head = end + 4;
  f->body = length == std::string::npos ? 0 : std::strtoul(head.c_str() + length + 17, nullptr, 10);
  f->expects_continue = head.find("\r\nexpect: 100-continue") != std::string::npos;
  return true;
}

}  // namespace

LoopUpstream::LoopUpstream() {
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0) die("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) die("bind");
  stamp_receives(listener_);
  if (listen(listener_, 256) < 0) die("listen");
  socklen_t len = sizeof addr;
  if (getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) < 0) die("getsockname");
  port_ = ntohs(addr.sin_port);
  std::thread([this] { accept_loop(); }).detach();
}

LoopUpstream::Seen LoopUpstream::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  Seen out = std::move(seen_);
  seen_ = Seen{};
  return out;
}

void LoopUpstream::accept_loop() {
  for (;;) {
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      die("accept");
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::thread([this, fd] { serve(fd); }).detach();
  }
}

void LoopUpstream::serve(int fd) {
  stamp_sends(fd);
  std::string in;
  int64_t first_byte = 0;  // the receive stamp of the request's first byte
  uint64_t sent = 0;       // bytes sent on this connection: the transmit stamps' numbering
  bool continued = false;
  char buf[65536];
  for (;;) {
    Framing f;
    if (frame(in, &f) && in.size() >= f.head + f.body) {
      std::string call_id;
      const std::string out = respond(in.substr(f.head, f.body), first_byte, &call_id);
      if (!call_id.empty()) {
        std::lock_guard<std::mutex> lock(mutex_);
        calls_[call_id] = kUnstamped;
      }
      const bool ok = send_all(fd, out);
      sent += out.size();
      // Every response's stamp is read, so that none piles up on the error queue.
      const int64_t last_byte = ok ? sent_stamp(fd, sent - 1) : 0;
      if (!call_id.empty()) {
        std::lock_guard<std::mutex> lock(mutex_);
        calls_[call_id] = last_byte;
        stamped_.notify_all();
      }
      if (!ok) break;
      in.erase(0, f.head + f.body);
      continued = false;
      first_byte = 0;  // a pipelined request has no stamp of its own
      continue;
    }
    if (!in.empty() && f.head && f.expects_continue && !continued) {
      const std::string go_on = "HTTP/1.1 100 Continue\r\n\r\n";
      continued = send_all(fd, go_on);
      sent += go_on.size();
      sent_stamp(fd, sent - 1);
    }
    // A request's first byte is read alone, so that the stamp is its first segment's.
    int64_t stamp = 0;
    const ssize_t got = recv_stamped(fd, buf, in.empty() ? 1 : sizeof buf, &stamp);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (in.empty()) first_byte = stamp;
    in.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
}

std::string LoopUpstream::respond(const std::string& body, int64_t first_byte,
                                  std::string* call_id) {
  const json request = json::parse(body, nullptr, false);
  if (!request.is_object() || !request.contains("messages") || !request["messages"].is_array() ||
      request["messages"].empty() || request.value("stream", false) != true)
    return error_response(400, "the loop bench upstream answers streamed chats only");
  const bool usage =
      request.contains("stream_options") && request["stream_options"].value("include_usage", false);
  const json& last = request["messages"].back();
  std::unique_lock<std::mutex> lock(mutex_);
  ++seen_.requests;
  if (last.value("role", "") == "tool") {
    // A call's transmit stamp is read after its response is sent, which can be after
    // agentd read it and sent this request on another connection: this waits for it.
    const std::string id = last.value("tool_call_id", "");
    stamped_.wait(lock, [&] {
      const auto call = calls_.find(id);
      return call == calls_.end() || call->second != kUnstamped;
    });
    const auto call = calls_.find(id);
    if (call == calls_.end() || call->second == 0 || first_byte == 0 ||
        last.dump().find(kEchoed) == std::string::npos) {
      ++seen_.bad_results;  // no such call, a stamp that did not come, or a failed tool
    } else {
      seen_.gaps_us.push_back(double(first_byte - call->second) / 1000);
    }
    if (call != calls_.end()) calls_.erase(call);
    return text_answer(usage);
  }
  const json* tools = request.contains("tools") ? &request["tools"] : nullptr;
  if (tools && tools->is_array() && !tools->empty()) {
    *call_id = "call_loop_" + std::to_string(++next_call_);
    const json function = (*tools)[0].value("function", json::object());
    return tool_call(*call_id, function.value("name", ""), usage);
  }
  return text_answer(usage);
}

}  // namespace loop_bench
