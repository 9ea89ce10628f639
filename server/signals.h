// Shutdown signals are taken synchronously: SIGTERM, SIGINT and SIGHUP are blocked before any
// thread exists (threads inherit the mask), and the main thread sigwait()s for them.
// No async handler runs, so shutdown code may do anything.
#pragma once

#include <csignal>

namespace agentrt::server {

class ShutdownSignals {
 public:
  // Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts later,
  // and ignores SIGPIPE so a write to a vanished client is an error, not death.
  ShutdownSignals();
  ~ShutdownSignals();  // restores the previous mask
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Blocks until SIGTERM or SIGINT arrives; returns which. A SIGHUP meanwhile is
  // logged and otherwise ignored.
  int wait();
  // Whether SIGTERM or SIGINT came since the last wait() or arrived(), without
  // blocking: a second one during the shutdown's grace period ends it.
  bool arrived();

 private:
  sigset_t set_;
  sigset_t previous_;
};

const char* signal_name(int signal);

}  // namespace agentrt::server
