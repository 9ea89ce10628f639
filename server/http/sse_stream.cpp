#include "server/http/sse_stream.h"

#include <ostream>

namespace agentrt::server {

SseStream::SseStream(Response& response, std::chrono::milliseconds ping_interval,
                     std::function<bool()> client_closed)
    : out_(response.begin_stream(200, "text/event-stream")),
      ping_interval_(ping_interval),
      last_write_(std::chrono::steady_clock::now()),
      client_closed_(std::move(client_closed)),
      last_probe_(last_write_),
      gone_(response.client_gone()) {}

bool SseStream::write(const std::string& text) {
  if (gone_) return false;
  try {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
  } catch (...) {  // a socket error may surface as an exception from the buffer
    gone_ = true;
    return false;
  }
  gone_ = !out_.good();
  last_write_ = std::chrono::steady_clock::now();
  return !gone_;
}

bool SseStream::send(const std::string& event) {
  std::string frame;
  frame.reserve(event.size() + 8);
  frame.append("data: ").append(event).append("\n\n");
  return write(frame);
}

bool SseStream::idle() {
  if (gone_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (client_closed_ && now - last_probe_ >= std::chrono::milliseconds(250)) {
    last_probe_ = now;
    if (client_closed_()) gone_ = true;
    if (gone_) return false;
  }
  if (now - last_write_ < ping_interval_) return true;
  return write(": ping\n\n");
}

}  // namespace agentrt::server
