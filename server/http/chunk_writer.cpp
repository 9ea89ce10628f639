#include "server/http/chunk_writer.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <string>

namespace agentrt::server {
namespace {

using Clock = std::chrono::steady_clock;

// What the server set on the socket (connection.cpp); 30 s when it cannot be read.
std::chrono::milliseconds send_timeout_of(int fd) {
  timeval tv{};
  socklen_t len = sizeof tv;
  if (::getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) != 0 ||
      (tv.tv_sec == 0 && tv.tv_usec == 0))
    return std::chrono::seconds(30);
  return std::chrono::milliseconds(tv.tv_sec * 1000 + tv.tv_usec / 1000);
}

// Appends "<size in upper-case hex>\r\n", as snprintf's "%zX\r\n" would: by hand, since
// snprintf's format parsing took about 700 instructions, 6% of agentd's a streamed delta.
void append_size_line(std::string& out, size_t size) {
  char digits[2 * sizeof size];
  size_t n = 0;
  do {
    digits[n++] = "0123456789ABCDEF"[size & 0xF];
    size >>= 4;
  } while (size != 0);
  while (n > 0) out.push_back(digits[--n]);
  out.append("\r\n");
}

}  // namespace

ChunkWriter::ChunkWriter(int fd)
    : fd_(fd), owner_(std::this_thread::get_id()), send_timeout_(send_timeout_of(fd)) {}

ChunkWriter::~ChunkWriter() {
  if (!gone_ && queued() > 0 && std::this_thread::get_id() == owner_) drain(true);
}

bool ChunkWriter::write(std::string_view data) {
  if (gone_) return false;
  if (data.empty()) return true;  // an empty chunk would end the response
  if (sent_ == pending_.size()) {
    pending_.clear();
    sent_ = 0;
  }
  if (framed_) {
    append_size_line(pending_, data.size());
    pending_.append(data).append("\r\n");
  } else {
    pending_.append(data);
  }
  drain(std::this_thread::get_id() == owner_);
  return !gone_;
}

bool ChunkWriter::flush() {
  if (!gone_ && queued() > 0) drain(std::this_thread::get_id() == owner_);
  return !gone_;
}

void ChunkWriter::drain(bool may_block) {
  while (!gone_ && sent_ < pending_.size()) {
    ssize_t n =
        ::send(fd_, pending_.data() + sent_, pending_.size() - sent_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent_ += static_cast<size_t>(n);
      stalled_since_ = {};
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      gone_ = true;
      break;
    }
    const Clock::time_point now = Clock::now();
    if (stalled_since_ == Clock::time_point{}) stalled_since_ = now;
    const Clock::time_point deadline = stalled_since_ + send_timeout_;
    if (!may_block) {
      gone_ = now >= deadline || queued() > kMaxQueued;
      return;
    }
    if (!wait_writable(deadline)) gone_ = true;
  }
  if (sent_ == pending_.size()) {
    pending_.clear();
    sent_ = 0;
  }
}

bool ChunkWriter::wait_writable(Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLOUT, 0};
    int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    if (rc > 0) return (p.revents & (POLLERR | POLLHUP | POLLNVAL)) == 0;
    if (rc < 0 && errno != EINTR) return false;
  }
}

}  // namespace agentrt::server
