// A raw TCP upstream that answers each request with bytes written by the test, for
// the transport's framing, reuse and failure cases that no vendor fake produces
// (Content-Length and close-framed bodies, HTTP/1.0, idle closes).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::test {

struct ScriptedAnswer {
  std::string bytes;  // written as they are
  enum class Then { keep, close, reset, hang } then = Then::keep;
};

class ScriptedUpstream {
 public:
  ScriptedUpstream();
  ~ScriptedUpstream();
  ScriptedUpstream(const ScriptedUpstream&) = delete;
  ScriptedUpstream& operator=(const ScriptedUpstream&) = delete;

  uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/v1/chat") const;
  void enqueue(ScriptedAnswer answer);        // for the next request; else 200 "ok"
  std::vector<std::string> requests() const;  // each request's head and body, as received
  size_t connections() const { return connections_; }

 private:
  void accept_loop();
  void serve(int fd);
  bool read_request(int fd, std::string& request);
  ScriptedAnswer next();

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> connections_{0};
  mutable std::mutex mutex_;
  std::condition_variable stopped_;
  std::deque<ScriptedAnswer> answers_;
  std::vector<std::string> requests_;
  std::vector<int> open_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace agentrt::test
