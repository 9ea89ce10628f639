#include "mcp_direct.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <stdexcept>

extern char** environ;

namespace loop_bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kProtocol = "2025-06-18";

std::string initialize(int id) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", kProtocol},
                {"capabilities", json::object()},
                {"clientInfo", {{"name", "loop_bench"}, {"version", "1"}}}}}}
      .dump();
}

const std::string kInitialized =
    json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump();

std::string echo_call(int id) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", "echo"}, {"arguments", {{"message", "loop bench"}}}}}}
      .dump();
}

// Throws unless `message` is a result whose text is the echo.
void check_echo(const std::string& message) {
  if (message.find("Echo: loop bench") == std::string::npos ||
      message.find("\"isError\":true") != std::string::npos)
    throw std::runtime_error("echo answered " + message.substr(0, 300));
}

double since_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

McpHttpEcho::McpHttpEcho(std::string url, bool fresh) : url_(std::move(url)) {
  post(initialize(next_id_++));
  post(kInitialized);
  if (fresh) http_.fresh_connections();
}

std::string McpHttpEcho::post(const std::string& message) {
  std::vector<std::string> headers = {"Content-Type: application/json",
                                      "Accept: application/json, text/event-stream"};
  if (!session_.empty()) {
    headers.push_back("Mcp-Session-Id: " + session_);
    headers.push_back(std::string("MCP-Protocol-Version: ") + kProtocol);
  }
  const HttpResponse r = http_.request("POST", url_, message, headers);
  if (r.status / 100 != 2)
    throw std::runtime_error("MCP over HTTP: " + std::to_string(r.status) + " " + r.body);
  if (session_.empty()) session_ = r.header("mcp-session-id");
  // An event stream carries the response as an event's data; plain JSON is the body.
  if (r.header("content-type").find("text/event-stream") == std::string::npos) return r.body;
  for (size_t at = 0; (at = r.body.find("data: ", at)) != std::string::npos;) {
    const size_t end = r.body.find('\n', at);
    std::string data = r.body.substr(at + 6, end - at - 6);
    if (data.find("\"id\"") != std::string::npos) return data;
    at = end;
  }
  return r.body;
}

double McpHttpEcho::call_us() {
  const Clock::time_point start = Clock::now();
  const std::string result = post(echo_call(next_id_++));
  const double us = since_us(start);
  check_echo(result);
  return us;
}

McpStdioEcho::McpStdioEcho(const std::vector<std::string>& argv) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int spawned = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
  const int id = next_id_++;
  exchange(initialize(id), id);
  send(kInitialized);
}

McpStdioEcho::~McpStdioEcho() {
  close(to_child_);
  close(from_child_);
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

void McpStdioEcho::send(const std::string& message) {
  const std::string line = message + "\n";
  for (size_t at = 0; at < line.size();) {
    const ssize_t n = write(to_child_, line.data() + at, line.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the stdio server's input closed");
    at += static_cast<size_t>(n);
  }
}

std::string McpStdioEcho::exchange(const std::string& message, int id) {
  send(message);
  // Notifications and the server's own requests may come first: skipped.
  const std::string want = "\"id\":" + std::to_string(id);
  auto answers = [&](const std::string& line) {
    const size_t at = line.find(want);
    if (at == std::string::npos || line.find("\"method\"") != std::string::npos) return false;
    const char next = at + want.size() < line.size() ? line[at + want.size()] : '\0';
    return next == ',' || next == '}';
  };
  char buf[65536];
  for (;;) {
    for (size_t nl; (nl = buffered_.find('\n')) != std::string::npos;) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      if (answers(line)) return line;
    }
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the stdio server's output closed");
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

double McpStdioEcho::call_us() {
  const int id = next_id_++;
  const Clock::time_point start = Clock::now();
  const std::string result = exchange(echo_call(id), id);
  const double us = since_us(start);
  check_echo(result);
  return us;
}

}  // namespace loop_bench
