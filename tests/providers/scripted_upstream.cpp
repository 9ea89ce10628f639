#include "tests/providers/scripted_upstream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace agentrt::test {

ScriptedUpstream::ScriptedUpstream() {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), length);
  ::listen(listener_, 64);
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

ScriptedUpstream::~ScriptedUpstream() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    stopped_.notify_all();
  }
  for (std::thread& t : threads_) t.join();
  ::close(listener_);
}

std::string ScriptedUpstream::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void ScriptedUpstream::enqueue(ScriptedAnswer answer) {
  std::lock_guard<std::mutex> lock(mutex_);
  answers_.push_back(std::move(answer));
}

std::vector<std::string> ScriptedUpstream::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void ScriptedUpstream::accept_loop() {
  while (!stopping_) {
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    ++connections_;
    std::lock_guard<std::mutex> lock(mutex_);
    open_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

ScriptedAnswer ScriptedUpstream::next() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (answers_.empty()) return {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"};
  ScriptedAnswer answer = std::move(answers_.front());
  answers_.pop_front();
  return answer;
}

// Reads one request: its head, then a body of its Content-Length. The length is read
// from the head once: looked for in the whole request after every read, a 4 MB body
// took the sanitizer build over a second, past a test's stall limit.
bool ScriptedUpstream::read_request(int fd, std::string& request) {
  size_t head_end = std::string::npos;
  size_t body = 0;
  char buffer[65536];
  while (true) {
    if (head_end == std::string::npos) {
      head_end = request.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        const std::string head = request.substr(0, head_end + 2);
        const char* length = strcasestr(head.c_str(), "\r\ncontent-length:");
        body = length ? std::strtoul(length + 17, nullptr, 10) : 0;
      }
    }
    if (head_end != std::string::npos && request.size() >= head_end + 4 + body) return true;
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    request.append(buffer, static_cast<size_t>(n));
  }
}

void ScriptedUpstream::serve(int fd) {
  for (;;) {
    std::string request;
    if (!read_request(fd, request)) break;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(request);
    }
    ScriptedAnswer answer = next();
    [[maybe_unused]] ssize_t sent =
        ::send(fd, answer.bytes.data(), answer.bytes.size(), MSG_NOSIGNAL);
    if (answer.then == ScriptedAnswer::Then::keep) continue;
    if (answer.then == ScriptedAnswer::Then::reset) {
      linger hard{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }
    if (answer.then == ScriptedAnswer::Then::hang) {
      std::unique_lock<std::mutex> lock(mutex_);
      stopped_.wait(lock, [this] { return stopping_.load(); });
    }
    break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  open_.erase(std::find(open_.begin(), open_.end(), fd));
  ::close(fd);
}

}  // namespace agentrt::test
