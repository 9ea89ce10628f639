#include "server/http/client_watch.h"

namespace agentrt::server {

ClientWatch::ClientWatch(std::function<bool()> closed, std::chrono::milliseconds every)
    : closed_(std::move(closed)), every_(every), last_probe_(std::chrono::steady_clock::now()) {}

bool ClientWatch::gone() {
  if (gone_ || !closed_) return gone_;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_probe_ < every_) return false;
  last_probe_ = now;
  gone_ = closed_();
  return gone_;
}

}  // namespace agentrt::server
