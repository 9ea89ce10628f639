#include "server/http/sse_stream.h"

#include "core/metrics/metrics.h"

#include <sys/socket.h>

#include <stdexcept>

namespace agentrt::server {
namespace {

int checked(int fd) {
  if (fd < 0) throw std::logic_error("an SSE stream needs the connection's socket");
  return fd;
}

}  // namespace

SseStream::SseStream(Response& response, std::chrono::milliseconds ping_interval,
                     std::function<bool()> client_closed, int client_fd, Head head)
    : response_(response),
      fd_(checked(client_fd)),
      writer_(fd_),
      ping_interval_(ping_interval),
      last_write_(std::chrono::steady_clock::now()),
      client_(std::move(client_closed)),
      gone_(false) {
  if (head == Head::now) send_head();
}

// begin_stream flushes the headers, so Poco's stream holds nothing that the writer's
// chunks could overtake; it writes the last chunk when the response ends.
bool SseStream::send_head() {
  head_sent_ = true;
  if (auto* metrics = core::metrics::active()) metrics->stream_opened();
  response_.begin_stream(200, "text/event-stream");
  if (!response_.stream_chunked()) writer_.send_unframed();
  gone_ = response_.client_gone();
  return !gone_;
}

SseStream::~SseStream() {
  if (!head_sent_) return;  // nothing sent: the response is still the caller's to make
  if (auto* metrics = core::metrics::active()) metrics->stream_closed();
  if (!gone_ && !writer_.flush()) gone_ = true;
  if (!gone_) return;
  response_.close_connection();
  // Unblocks at once the last chunk Poco writes after this: nobody reads it.
  ::shutdown(fd_, SHUT_RDWR);
}

bool SseStream::write(const std::string& text) {
  // Before the head nothing was sent, and the response is still the caller's to make.
  if (head_sent_ && ended_ && ended_()) gone_ = true;
  if (gone_ || (!head_sent_ && !send_head())) return false;
  last_write_ = std::chrono::steady_clock::now();
  gone_ = !writer_.write(text);
  return !gone_;
}

bool SseStream::send(const std::string& event) {
  std::string frame;
  frame.reserve(event.size() + 8);
  frame.append("data: ").append(event).append("\n\n");
  return write(frame);
}

bool SseStream::send_numbered(const std::string& event, int64_t seq) {
  if (!numbered_) return send(event);
  std::string frame = "id: " + std::to_string(seq) + "\n";
  frame.reserve(frame.size() + event.size() + 8);
  frame.append("data: ").append(event).append("\n\n");
  return write(frame);
}

bool SseStream::send_named(std::string_view name, const std::string& event) {
  std::string frame;
  frame.reserve(name.size() + event.size() + 16);
  frame.append("event: ").append(name).append("\ndata: ").append(event).append("\n\n");
  return write(frame);
}

bool SseStream::idle() {
  if (gone_) return false;
  if (!head_sent_) return true;  // a keep-alive may not come before the first event
  gone_ = (ended_ && ended_()) || !writer_.flush() || client_.gone();
  if (gone_) return false;
  if (std::chrono::steady_clock::now() - last_write_ < ping_interval_) return true;
  return write(": ping\n\n");
}

}  // namespace agentrt::server
