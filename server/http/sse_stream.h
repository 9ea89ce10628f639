// Server-sent events over a chunked response: one "data: {json}" line and a blank line
// per event, flushed as it happens; a ": ping" comment when the stream has been silent
// for the ping interval. Poco's stream goes bad rather than throwing when the client
// disconnects, so every write checks good() and reports the client gone, which stops
// the run.
#pragma once

#include "core/runs/run_service.h"
#include "server/http/response.h"

#include <chrono>
#include <functional>
#include <iosfwd>

namespace agentrt::server {

class SseStream : public core::RunSink {
 public:
  // `client_closed` may be empty; when set, idle() asks it, at most every 250 ms: a
  // stream of deltas already learns of a closed client from its writes, and probing
  // at every delta was one recv per delta at 2,000 streams.
  SseStream(Response& response, std::chrono::milliseconds ping_interval,
            std::function<bool()> client_closed = {});

  bool send(const std::string& event) override;
  bool idle() override;  // sends ": ping" when due
  bool gone() const { return gone_; }

 private:
  bool write(const std::string& text);

  std::ostream& out_;
  std::chrono::milliseconds ping_interval_;
  std::chrono::steady_clock::time_point last_write_;
  std::function<bool()> client_closed_;
  std::chrono::steady_clock::time_point last_probe_;
  bool gone_ = false;
};

}  // namespace agentrt::server
