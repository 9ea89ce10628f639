#include "server/signals.h"

#include "core/log/logger.h"

#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace agentrt::server {

ShutdownSignals::ShutdownSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGHUP);
  if (const int rc = pthread_sigmask(SIG_BLOCK, &set_, &previous_); rc != 0)
    throw std::runtime_error(std::string("pthread_sigmask: ") + std::strerror(rc));
  std::signal(SIGPIPE, SIG_IGN);
  // A write past the file size limit (an operator's LimitFSIZE) then fails as on a full
  // disk, and the stores answer 503 and report it on /health, where the signal's
  // default action killed agentd with every stream it held.
  std::signal(SIGXFSZ, SIG_IGN);
}

ShutdownSignals::~ShutdownSignals() {
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int ShutdownSignals::wait() {
  for (;;) {
    int signal = 0;
    const int rc = sigwait(&set_, &signal);
    if (rc == EINTR) continue;
    if (rc != 0) throw std::runtime_error(std::string("sigwait: ") + std::strerror(rc));
    if (signal != SIGHUP) return signal;
    // What operators send to reload, and what a closed terminal sends. agentd has nothing
    // to reload, and the signal's default action kills agentd with every stream it holds,
    // their turns lost.
    core::log_warn("SIGHUP ignored",
                   {{"hint",
                     "agentd reads its config only at start: restart it (SIGTERM) to "
                     "apply a change"}});
  }
}

bool ShutdownSignals::arrived() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  const timespec now{0, 0};
  return ::sigtimedwait(&stop, nullptr, &now) > 0;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    default:
      return "signal";
  }
}

}  // namespace agentrt::server
