// Writes the chunks of a chunked HTTP response straight to the client's socket, from
// whichever thread produces them, without ever blocking a thread that is not the
// response's own.
//
// Why: a run whose provider call runs on the provider's own threads (ABI 1.2
// complete_async) produces its deltas there, one thread for many streams; a client
// that reads slowly must not hold up the others. Such a thread queues what the socket
// does not take at once; the response's own thread, which writes the run's last
// events, waits for the queue to drain as a blocking send would (up to the socket's
// send timeout). A queue that makes no progress for that long, or grows past a cap,
// means the client is gone, just as a blocked send that timed out did.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <thread>

namespace agentrt::server {

class ChunkWriter {
 public:
  // `fd` is the connection's socket, its response headers already sent; the thread
  // that makes the writer is the one that may block.
  explicit ChunkWriter(int fd);
  // Waits for queued chunks, as the owner's last write would.
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Frames `data` as one chunk and sends it, or queues what the socket does not take.
  // False once the client counts as gone.
  bool write(std::string_view data);
  // From now on `data` is sent as it is: the body of a response to HTTP/1.0, which has
  // no chunked coding and ends with the connection.
  void send_unframed() { framed_ = false; }
  // Sends what is queued as far as the socket takes it; false once gone.
  bool flush();
  bool gone() const { return gone_; }
  size_t queued() const { return pending_.size() - sent_; }

  // Beyond this much queued, a client counts as gone.
  static constexpr size_t kMaxQueued = 4 << 20;

 private:
  void drain(bool may_block);
  bool wait_writable(std::chrono::steady_clock::time_point deadline);

  int fd_;
  bool framed_ = true;
  std::thread::id owner_;
  std::chrono::milliseconds send_timeout_;
  std::string pending_;
  size_t sent_ = 0;
  std::chrono::steady_clock::time_point stalled_since_{};
  bool gone_ = false;
};

}  // namespace agentrt::server
