#include "server/http/idle_shedding.h"

#include "server/http/connection.h"

namespace agentrt::server {

bool ShedWhenFull::accept(const Poco::Net::StreamSocket&) {
  if (server_ == nullptr) return true;
  // Connections served plus those queued against the threads: when they take them all,
  // enough waiting connections end for every queued one and this one to get a thread.
  const int queued = server_->queuedConnections();
  if (server_->currentConnections() + queued >= server_->maxThreads())
    connections_->shed(queued + 1);
  return true;
}

}  // namespace agentrt::server
