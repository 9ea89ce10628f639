// The model of bench/loop: an OpenAI-compatible upstream (Chat Completions, streamed)
// that times the step loop on its own clock. A request whose last message is a user's
// and that offers tools gets a streamed call to the first tool offered, `{"message":
// "loop bench"}`, under an id of its own; a request whose last message is that call's
// tool result gets a short text answer, and the time from the last byte of the call's
// response to the first byte of that request, both as the kernel stamped them on the
// upstream's sockets (wire_stamps.h), is one loop gap. Any other request gets the text
// answer. Loopback only, a thread a connection, keep-alive.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace loop_bench {

class LoopUpstream {
 public:
  // Listens on 127.0.0.1 on a port of the kernel's choosing; exits the process when it
  // cannot.
  LoopUpstream();
  LoopUpstream(const LoopUpstream&) = delete;
  LoopUpstream& operator=(const LoopUpstream&) = delete;

  int port() const { return port_; }

  // What was seen since the previous take(): the loop gaps in µs, the requests, and
  // the tool results that were not the echo of the call (a failed tool, or a result
  // for a call this upstream never made).
  struct Seen {
    std::vector<double> gaps_us;
    unsigned requests = 0;
    unsigned bad_results = 0;
  };
  Seen take();

 private:
  void accept_loop();
  void serve(int fd);
  // The response to one request body; `first_byte` is its first byte's receive stamp.
  // A call made is named in `call_id`, and stamped by the caller once it is sent.
  std::string respond(const std::string& body, int64_t first_byte, std::string* call_id);

  int listener_ = -1;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable stamped_;
  unsigned long next_call_ = 0;
  std::unordered_map<std::string, int64_t> calls_;  // id -> its last byte's transmit stamp
  Seen seen_;
};

}  // namespace loop_bench
