// A connection thread is held for a connection's whole life (http_server.h), so clients
// that hold connections open without asking anything (thousands of idle keep-alives, or
// request heads dripped a byte at a time) could take every thread, and a new client,
// /health included, would wait in the queue for a keep-alive or request timeout. Instead,
// when a connection is accepted with no thread free, connections that are only waiting on
// their clients give their threads up: idle ones between requests, and ones whose request
// head is not all there (a client's head comes in one packet; a wait for more of it is a
// slow network or a client dripping it). They are closed unanswered, as a keep-alive
// timeout closes one (docs/operator-guide.md, "Connections").
#pragma once

#include <Poco/Net/TCPServer.h>

#include <atomic>
#include <chrono>
#include <memory>

namespace agentrt::server {

class ConnectionSet;

// Whether a connection may be shed now. The connection marks itself waiting before it
// blocks on its client and claims itself back after; whoever moves it out of `waiting`
// first wins, so a connection whose request came in is never shed, and a shed one never
// reads again. When a connection was accepted while none could be shed, the debt is
// paid by the next connection to start waiting with nothing to read: it ends instead.
class WaitMark {
 public:
  explicit WaitMark(std::atomic<int>& owed) : owed_(owed) {}
  // Whether connections are owed: one load, before anything dearer is asked.
  bool owed() const { return owed_.load(std::memory_order_relaxed) > 0; }
  // Takes one owed connection on this one, which is to end now; false when none is owed.
  bool pay() {
    for (int owed = owed_.load(std::memory_order_relaxed); owed > 0;)
      if (owed_.compare_exchange_weak(owed, owed - 1)) return true;
    return false;
  }
  void waiting() { state_.store(kWaiting, std::memory_order_release); }
  // False when the connection was shed meanwhile.
  bool claim() {
    int expected = kWaiting;
    return state_.compare_exchange_strong(expected, kBusy) || expected == kBusy;
  }
  // True when this call shed it (it was waiting).
  bool shed() {
    int expected = kWaiting;
    return state_.compare_exchange_strong(expected, kShed);
  }

 private:
  static constexpr int kBusy = 0;
  static constexpr int kWaiting = 1;
  static constexpr int kShed = 2;
  std::atomic<int>& owed_;
  std::atomic<int> state_{kBusy};
};

// Poco's hook before each accepted connection is queued: when every thread is taken, one
// waiting connection is shed so that a thread comes free for it.
class ShedWhenFull : public Poco::Net::TCPServerConnectionFilter {
 public:
  explicit ShedWhenFull(std::shared_ptr<ConnectionSet> connections)
      : connections_(std::move(connections)) {}
  // Set once the server exists, before it starts.
  void watch(const Poco::Net::TCPServer* server) { server_ = server; }
  bool accept(const Poco::Net::StreamSocket& socket) override;

 private:
  std::shared_ptr<ConnectionSet> connections_;
  const Poco::Net::TCPServer* server_ = nullptr;
};

}  // namespace agentrt::server
