// A zero-delay (or paced) OpenAI-compatible upstream for the benchmarks.
//
//   mock_upstream [--host 127.0.0.1] [--port 0] [--mode instant|paced] [--deltas 16]
//                 [--delay-ms 20] [--threads 2]
//
// POST .../chat/completions answers the Chat Completions wire format: with
// "stream":true an SSE stream (role chunk with "content":"", one chunk per delta, the
// finish chunk, the usage chunk with "choices":[] when stream_options.include_usage is
// true, then "data: [DONE]"), each event its own HTTP chunk; otherwise one
// chat.completion JSON. `max_completion_tokens` (or `max_tokens`) below --deltas cuts
// the answer to that many deltas with finish_reason "length". A streaming request that
// offers "tools" and answers no call ("tool_call_id" nowhere in it) gets one call
// instead, in OpenAI's fragments: id "call_bench", get_weather, {"city":"Paris"} in three
// pieces, finish_reason "tool_calls" (bench/run.sh's tool round trip).
//
// instant: the whole response goes out in one write, pre-rendered at start.
// paced:   the head, the role chunk and the first delta go out at once, then one delta
//          every --delay-ms; the finish, usage and [DONE] go with the last delta.
//
// One epoll loop per thread, each with its own SO_REUSEPORT listener; keep-alive.
// Prints "listening <host>:<port>" on stdout once every listener is up; on SIGTERM or
// SIGINT prints "served <n> requests" on stderr and exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  bool paced = false;
  int deltas = 16;
  int delay_ms = 20;
  int threads = 2;
};

std::atomic<unsigned long> g_served{0};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "mock_upstream: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

// ---- Rendering ----------------------------------------------------------------------

constexpr std::string_view kChunkHead =
    R"({"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,)"
    R"("model":"mock-model","system_fingerprint":"fp_bench","choices":)";

std::string delta_text(int i) {
  return "w" + std::to_string(i) + " ";
}

std::string sse_chunk(const std::string& json) {
  std::string event = "data: " + json + "\n\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", event.size());
  return size + event + "\r\n";
}

std::string choice_chunk(const std::string& delta, const char* finish) {
  std::string finish_json = finish ? std::string("\"") + finish + "\"" : "null";
  return sse_chunk(std::string(kChunkHead) + R"([{"index":0,"delta":)" + delta +
                   R"(,"logprobs":null,"finish_reason":)" + finish_json + R"(}],"usage":null})");
}

std::string usage_json(int completion) {
  return R"({"prompt_tokens":8,"completion_tokens":)" + std::to_string(completion) +
         R"(,"total_tokens":)" + std::to_string(8 + completion) + "}";
}

// The stream as write groups: [0] is the head with the role chunk and the first delta,
// [k] the k-th delta; the last group also carries the end of the stream.
std::vector<std::string> render_stream(int n, bool length_cut, bool include_usage) {
  std::vector<std::string> groups;
  std::string first =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
  first += choice_chunk(R"({"role":"assistant","content":"","refusal":null})", nullptr);
  groups.push_back(first);
  for (int i = 0; i < n; ++i) {
    std::string delta = choice_chunk(R"({"content":")" + delta_text(i) + "\"}", nullptr);
    if (i == 0)
      groups[0] += delta;
    else
      groups.push_back(delta);
  }
  std::string& last = groups.back();
  last += choice_chunk("{}", length_cut ? "length" : "stop");
  if (include_usage)
    last += sse_chunk(std::string(kChunkHead) + R"([],"usage":)" + usage_json(n) + "}");
  last += sse_chunk("[DONE]");
  last += "0\r\n\r\n";
  return groups;
}

// One call to get_weather, its arguments in three fragments, as OpenAI streams them.
std::string render_tool_stream(bool include_usage) {
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
  out += choice_chunk(R"({"role":"assistant","content":null,"refusal":null})", nullptr);
  out += choice_chunk(R"({"tool_calls":[{"index":0,"id":"call_bench","type":"function",)"
                      R"("function":{"name":"get_weather","arguments":""}}]})",
                      nullptr);
  for (const char* piece : {R"({\"city)", R"(\":\"Par)", R"(is\"})"})
    out += choice_chunk(
        std::string(R"({"tool_calls":[{"index":0,"function":{"arguments":")") + piece + R"("}}]})",
        nullptr);
  out += choice_chunk("{}", "tool_calls");
  if (include_usage)
    out += sse_chunk(std::string(kChunkHead) + R"([],"usage":)" + usage_json(12) + "}");
  out += sse_chunk("[DONE]");
  out += "0\r\n\r\n";
  return out;
}

std::string render_json(int n, bool length_cut) {
  std::string text;
  for (int i = 0; i < n; ++i) text += delta_text(i);
  std::string body =
      R"({"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,)"
      R"("model":"mock-model","system_fingerprint":"fp_bench","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":")" +
      text + R"(","refusal":null},"logprobs":null,"finish_reason":")" +
      (length_cut ? "length" : "stop") + R"("}],"usage":)" + usage_json(n) + "}";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string render_error(int status, const char* reason, const std::string& message) {
  std::string body = R"({"error":{"message":")" + message +
                     R"(","type":"invalid_request_error","param":null,"code":null}})";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

// The default answers, rendered once.
struct Rendered {
  std::string json;
  std::string stream[2];       // [include_usage], whole
  std::string tool_stream[2];  // [include_usage], whole: a call to get_weather
  std::vector<std::string> groups[2];
};

// ---- Request parsing ----------------------------------------------------------------

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

// The value after `"key"` and a colon, whitespace skipped; empty when absent.
std::string_view json_value(std::string_view body, std::string_view key) {
  size_t at = body.find(key);
  if (at == std::string_view::npos) return {};
  at += key.size();
  while (at < body.size() && (body[at] == ' ' || body[at] == ':' || body[at] == '\n' ||
                              body[at] == '\t' || body[at] == '\r'))
    ++at;
  return body.substr(at);
}

struct Request {
  size_t length = 0;  // head + body bytes; 0 while incomplete
  bool bad = false;
  bool close = false;
  std::string_view path;
  std::string_view body;
};

Request parse(std::string_view in) {
  Request r;
  size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    r.bad = in.size() > 64 * 1024;
    return r;
  }
  std::string_view head = in.substr(0, head_end);
  size_t sp1 = head.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : head.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    r.bad = true;
    return r;
  }
  r.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t content_length = 0;
  size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos < head.size()) {
    size_t next = head.find("\r\n", pos + 2);
    std::string_view line = head.substr(
        pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2);
    if (iequals_prefix(line, "content-length:")) {
      content_length = std::strtoul(std::string(line.substr(15)).c_str(), nullptr, 10);
    } else if (iequals_prefix(line, "transfer-encoding:")) {
      r.bad = true;  // no client of the benchmarks sends a chunked body
    } else if (iequals_prefix(line, "connection:") &&
               line.find("close") != std::string_view::npos) {
      r.close = true;
    }
    pos = next;
  }
  if (r.bad) return r;
  if (in.size() < head_end + 4 + content_length) return r;
  r.body = in.substr(head_end + 4, content_length);
  r.length = head_end + 4 + content_length;
  return r;
}

// ---- Connections and the loop -------------------------------------------------------

struct Conn {
  int fd;
  unsigned generation;
  std::string in;
  std::string out;
  size_t out_at = 0;
  bool want_out = false;     // EPOLLOUT registered
  bool close_after = false;  // Connection: close, or a refused request
  // A paced stream in progress: its groups and the next one to send.
  const std::vector<std::string>* groups = nullptr;
  size_t next_group = 0;
  std::vector<std::string> owned;  // groups rendered for this request (a cut answer)
};

struct Timer {
  Clock::time_point due;
  int fd;
  unsigned generation;
  bool operator>(const Timer& other) const { return due > other.due; }
};

class Worker {
 public:
  Worker(const Options& options, const Rendered& rendered, int listener)
      : options_(options), rendered_(rendered), listener_(listener) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) die("epoll_create1");
    add(listener_, EPOLLIN);
  }

  void run() {
    std::vector<epoll_event> events(512);
    for (;;) {
      int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), timeout_ms());
      if (n < 0 && errno != EINTR) die("epoll_wait");
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == listener_) {
          accept_all();
          continue;
        }
        auto it = conns_.find(fd);
        if (it == conns_.end()) continue;
        Conn& c = *it->second;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) {
          close_conn(c);
          continue;
        }
        if (events[i].events & EPOLLIN) {
          on_readable(c);  // reads, answers what is complete, sends what is queued
        } else if ((events[i].events & EPOLLOUT) && flush(c)) {
          serve(c);  // a request that waited for this response to be sent
        }
      }
      fire_timers();
    }
  }

 private:
  void add(int fd, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) < 0) die("epoll_ctl add");
  }

  void set_out(Conn& c, bool on) {
    if (c.want_out == on) return;
    c.want_out = on;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0u);
    ev.data.fd = c.fd;
    epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void accept_all() {
    for (;;) {
      int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a transient error: the next event retries
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto conn = std::make_unique<Conn>();
      conn->fd = fd;
      conn->generation = ++generation_;
      add(fd, EPOLLIN | EPOLLRDHUP);
      conns_[fd] = std::move(conn);
    }
  }

  void close_conn(Conn& c) {
    int fd = c.fd;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns_.erase(fd);  // destroys c; a pending timer finds no connection or a new one
  }

  void on_readable(Conn& c) {
    char buf[16384];
    for (;;) {
      ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
      if (got > 0) {
        c.in.append(buf, static_cast<size_t>(got));
        if (static_cast<size_t>(got) < sizeof buf) break;
      } else if (got == 0) {
        close_conn(c);
        return;
      } else {
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        if (errno == EINTR) continue;
        close_conn(c);
        return;
      }
    }
    serve(c);
  }

  // Answers the complete requests in `in`, one at a time: the next waits until the
  // current response (a paced stream included) is fully sent. False when `c` is closed.
  bool serve(Conn& c) {
    while (c.groups == nullptr && c.out_at >= c.out.size() && !c.close_after) {
      Request r = parse(c.in);
      if (r.bad) {
        c.close_after = true;
        queue(c, render_error(400, "Bad Request", "the mock cannot parse this request"));
        break;
      }
      if (r.length == 0) break;
      c.close_after = r.close;
      respond(c, r);
      c.in.erase(0, r.length);
      g_served.fetch_add(1, std::memory_order_relaxed);
      if (!flush(c)) return false;
    }
    return flush(c);
  }

  void respond(Conn& c, const Request& r) {
    const std::string_view suffix = "/chat/completions";
    bool chat =
        r.path.size() >= suffix.size() && r.path.substr(r.path.size() - suffix.size()) == suffix;
    if (!chat) {
      queue(c, render_error(404, "Not Found", "the mock serves POST .../chat/completions only"));
      return;
    }
    bool stream = json_value(r.body, "\"stream\"").substr(0, 4) == "true";
    bool usage = json_value(r.body, "\"include_usage\"").substr(0, 4) == "true";
    int n = options_.deltas;
    std::string_view max = json_value(r.body, "\"max_completion_tokens\"");
    if (max.empty()) max = json_value(r.body, "\"max_tokens\"");
    if (!max.empty()) {
      int limit = std::atoi(std::string(max.substr(0, 12)).c_str());
      if (limit > 0 && limit < n) n = limit;
    }
    const bool cut = n < options_.deltas;
    const bool calls = stream && r.body.find("\"tools\"") != std::string_view::npos &&
                       r.body.find("\"tool_call_id\"") == std::string_view::npos;
    if (calls) {
      queue(c, rendered_.tool_stream[usage]);
      return;
    }
    if (!stream) {
      queue(c, cut ? render_json(n, true) : rendered_.json);
      return;
    }
    if (!options_.paced) {
      if (!cut) {
        queue(c, rendered_.stream[usage]);
      } else {
        for (const std::string& group : render_stream(n, true, usage)) queue(c, group);
      }
      return;
    }
    if (cut) {
      c.owned = render_stream(n, true, usage);
      c.groups = &c.owned;
    } else {
      c.groups = &rendered_.groups[usage];
    }
    c.next_group = 0;
    send_group(c);
  }

  void send_group(Conn& c) {
    const std::vector<std::string>& groups = *c.groups;
    queue(c, groups[c.next_group++]);
    if (c.next_group < groups.size()) {
      timers_.push(
          {Clock::now() + std::chrono::milliseconds(options_.delay_ms), c.fd, c.generation});
    } else {
      c.groups = nullptr;
      c.owned.clear();
    }
  }

  void queue(Conn& c, const std::string& bytes) {
    if (c.out_at >= c.out.size()) {
      c.out.clear();
      c.out_at = 0;
    }
    c.out += bytes;
  }

  // Sends what is queued; false when the connection was closed.
  bool flush(Conn& c) {
    while (c.out_at < c.out.size()) {
      ssize_t sent = ::send(c.fd, c.out.data() + c.out_at, c.out.size() - c.out_at, MSG_NOSIGNAL);
      if (sent > 0) {
        c.out_at += static_cast<size_t>(sent);
      } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        set_out(c, true);
        return true;
      } else if (sent < 0 && errno == EINTR) {
        continue;
      } else {
        close_conn(c);
        return false;
      }
    }
    set_out(c, false);
    if (c.close_after && c.groups == nullptr) {
      close_conn(c);
      return false;
    }
    return true;
  }

  int timeout_ms() const {
    if (timers_.empty()) return -1;
    auto wait =
        std::chrono::duration_cast<std::chrono::microseconds>(timers_.top().due - Clock::now());
    if (wait.count() <= 0) return 0;
    return static_cast<int>((wait.count() + 999) / 1000);
  }

  void fire_timers() {
    const Clock::time_point now = Clock::now();
    while (!timers_.empty() && timers_.top().due <= now) {
      Timer t = timers_.top();
      timers_.pop();
      auto it = conns_.find(t.fd);
      if (it == conns_.end() || it->second->generation != t.generation) continue;
      Conn& c = *it->second;
      if (c.groups == nullptr) continue;
      send_group(c);
      if (flush(c)) serve(c);
    }
  }

  const Options& options_;
  const Rendered& rendered_;
  int listener_;
  int epoll_ = -1;
  unsigned generation_ = 0;
  std::unordered_map<int, std::unique_ptr<Conn>> conns_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
};

int make_listener(const Options& options, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, options.host.c_str(), &addr.sin_addr) != 1) {
    errno = EINVAL;
    die("--host must be an IPv4 address");
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) die("bind");
  if (listen(fd, 4096) < 0) die("listen");
  return fd;
}

int bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) die("getsockname");
  return ntohs(addr.sin_port);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help") {
      std::puts(
          "mock_upstream [--host 127.0.0.1] [--port 0] [--mode instant|paced] [--deltas 16]"
          " [--delay-ms 20] [--threads 2]");
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "mock_upstream: %s needs a value\n", flag.c_str());
      std::exit(2);
    }
    std::string value = argv[++i];
    if (flag == "--host") {
      o.host = value;
    } else if (flag == "--port") {
      o.port = std::atoi(value.c_str());
    } else if (flag == "--mode" && (value == "instant" || value == "paced")) {
      o.paced = value == "paced";
    } else if (flag == "--deltas") {
      o.deltas = std::atoi(value.c_str());
    } else if (flag == "--delay-ms") {
      o.delay_ms = std::atoi(value.c_str());
    } else if (flag == "--threads") {
      o.threads = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "mock_upstream: bad flag or value: %s %s\n", flag.c_str(),
                   value.c_str());
      std::exit(2);
    }
  }
  if (o.deltas < 1 || o.delay_ms < 0 || o.threads < 1 || o.port < 0 || o.port > 65535) {
    std::fprintf(stderr, "mock_upstream: --deltas and --threads must be >= 1\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  Rendered rendered;
  rendered.json = render_json(options.deltas, false);
  for (int usage = 0; usage < 2; ++usage) {
    rendered.groups[usage] = render_stream(options.deltas, false, usage == 1);
    for (const std::string& group : rendered.groups[usage]) rendered.stream[usage] += group;
    rendered.tool_stream[usage] = render_tool_stream(usage == 1);
  }

  // Signals are taken by sigwait below, never by a worker.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // The first listener picks the port; the others share it through SO_REUSEPORT.
  std::vector<int> listeners{make_listener(options, options.port)};
  const int port = bound_port(listeners[0]);
  for (int i = 1; i < options.threads; ++i) listeners.push_back(make_listener(options, port));

  std::vector<std::unique_ptr<Worker>> workers;
  for (int fd : listeners) workers.push_back(std::make_unique<Worker>(options, rendered, fd));
  for (auto& worker : workers) std::thread([w = worker.get()] { w->run(); }).detach();

  std::printf("listening %s:%d\n", options.host.c_str(), port);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  std::fprintf(stderr, "mock_upstream: served %lu requests\n", g_served.load());
  std::fflush(stderr);
  std::_Exit(0);
}
