// The floor under any engine's added latency on this machine: a relay that does nothing
// but hand each request on. Scenario 1 of bench/run.sh measures it beside agentd, so the
// part of agentd's added time that no engine in agentd's place could avoid here (the
// extra hop over loopback TCP and the two threads it wakes) is read off, not guessed.
//
//   floor_relay --upstream HOST:PORT [--port 0] [--spin-us 0]
//
// One thread per client connection, blocking sockets, as agentd serves /chat. For each
// request (a head, then Content-Length bytes) it sends one fixed streaming Chat
// Completions request to the upstream over the connection's own keep-alive upstream
// connection, reads the chunked answer to its last chunk, and answers the client with a
// fixed JSON body of the size of agentd's /chat answer. It parses nothing it does not
// need: no JSON, no store, no auth.
//
// --spin-us N: before each blocking read, try the socket without blocking for up to N
// µs, so that a quick answer finds the thread awake instead of waking it.
//
// Prints "listening 127.0.0.1:<port>" on stdout once it accepts.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string upstream_host = "127.0.0.1";
  int upstream_port = 0;
  int port = 0;
  int spin_us = 0;
};

Options g_options;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "floor_relay: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// One read into `into`; false at end of stream or on an error.
bool read_more(int fd, std::string& into) {
  char buf[16384];
  ssize_t n = -1;
  auto spin_until = Clock::now() + std::chrono::microseconds(g_options.spin_us);
  while (g_options.spin_us > 0) {
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) break;
    if (Clock::now() >= spin_until) break;
  }
  if (n < 0) n = recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return false;
  into.append(buf, static_cast<size_t>(n));
  return true;
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads one request (head and Content-Length body) from the front of `in`, reading
// more as needed; removes it. False when the client is gone.
bool read_request(int fd, std::string& in) {
  size_t head_end;
  while ((head_end = in.find("\r\n\r\n")) == std::string::npos)
    if (!read_more(fd, in)) return false;
  size_t length = 0;
  size_t at = in.find("ontent-Length:");
  if (at == std::string::npos) at = in.find("ontent-length:");
  if (at != std::string::npos && at < head_end) length = std::strtoul(&in[at + 14], nullptr, 10);
  while (in.size() < head_end + 4 + length)
    if (!read_more(fd, in)) return false;
  in.erase(0, head_end + 4 + length);
  return true;
}

// Reads the upstream's chunked answer up to and including its last chunk.
bool read_upstream_answer(int fd, std::string& in) {
  size_t end;
  while ((end = in.find("\r\n0\r\n\r\n")) == std::string::npos)
    if (!read_more(fd, in)) return false;
  in.erase(0, end + 7);
  return true;
}

int connect_upstream() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(g_options.upstream_port));
  inet_pton(AF_INET, g_options.upstream_host.c_str(), &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect upstream");
  set_nodelay(fd);
  return fd;
}

std::string upstream_request() {
  std::string body = R"({"model":"mock-model","messages":[{"role":"user","content":"hello"}],)"
                     R"("stream":true,"stream_options":{"include_usage":true}})";
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: " + g_options.upstream_host +
         "\r\nContent-Type: application/json\r\nAuthorization: Bearer sk\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string client_answer() {
  // About the size of agentd's /chat answer to the bench's request.
  std::string body =
      R"({"run_id":"run_00000000000000000000000000","session_id":"ses_00000000000000000000000000",)"
      R"("output":[{"type":"text","text":"w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 "}],)"
      R"("stop_reason":"end_turn","usage":{"input_tokens":8,"output_tokens":16}})";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

void serve(int client) {
  set_nodelay(client);
  int upstream = connect_upstream();
  const std::string request = upstream_request();
  const std::string answer = client_answer();
  std::string from_client, from_upstream;
  while (read_request(client, from_client)) {
    if (!send_all(upstream, request) || !read_upstream_answer(upstream, from_upstream)) break;
    if (!send_all(client, answer)) break;
  }
  close(upstream);
  close(client);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--upstream") {
      size_t colon = value.rfind(':');
      o.upstream_host = value.substr(0, colon);
      o.upstream_port = std::atoi(value.c_str() + colon + 1);
    } else if (flag == "--port") {
      o.port = std::atoi(value.c_str());
    } else if (flag == "--spin-us") {
      o.spin_us = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "floor_relay: unknown option %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (o.upstream_port <= 0) {
    std::fprintf(stderr, "usage: floor_relay --upstream HOST:PORT [--port 0] [--spin-us 0]\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  g_options = parse_options(argc, argv);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) die("socket");
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(g_options.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("bind");
  if (listen(listener, 1024) != 0) die("listen");
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::printf("listening 127.0.0.1:%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);
  for (;;) {
    int client = accept(listener, nullptr, nullptr);
    if (client < 0) {
      if (errno == EINTR) continue;
      die("accept");
    }
    std::thread(serve, client).detach();
  }
}
