// What Poco's acceptor thread cannot do, said in the log. Poco's TCPServer hands a failed
// accept() (and any exception a connection lets escape) to the process-wide
// Poco::ErrorHandler, whose default says nothing: a server out of file descriptors would
// leave new clients waiting in the backlog without a word.
#pragma once

#include <Poco/ErrorHandler.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

namespace agentrt::server {

class AcceptErrorLog : public Poco::ErrorHandler {
 public:
  void exception(const Poco::Exception& e) override;
  void exception(const std::exception& e) override;
  void exception() override;

  // Installs one handler for the process (Poco keeps a raw pointer to it).
  static void install();

  // Held while a server stops: its acceptor's last accept fails by design (the stop
  // shuts the listening socket down to wake it), and that failure is not reported.
  class Stopping {
   public:
    Stopping();
    ~Stopping();
    Stopping(const Stopping&) = delete;
    Stopping& operator=(const Stopping&) = delete;
  };

 private:
  // Logs at most one line every few seconds, counting those it held back: a failing
  // accept repeats as fast as the acceptor loops.
  void report(const std::string& what, bool out_of_descriptors);

  static std::atomic<int> stopping_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
  unsigned held_back_ = 0;
};

}  // namespace agentrt::server
