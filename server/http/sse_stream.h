// Server-sent events over a chunked response: one "data: {json}" line and a blank line
// per event, sent as it happens; a ": ping" comment when the stream has been silent
// for the ping interval. A client that disconnects, or stops reading for the send
// timeout, reports the stream gone, which stops the run.
//
// Events go straight to the connection's socket through a ChunkWriter, so a run whose
// deltas arrive on a provider's own thread sends them from there without blocking it
// (chunk_writer.h).
#pragma once

#include "core/runs/run_service.h"
#include "server/http/chunk_writer.h"
#include "server/http/client_watch.h"
#include "server/http/response.h"

#include <chrono>
#include <functional>

namespace agentrt::server {

class SseStream : public core::RunSink {
 public:
  // When the response head goes out: at once (a follower, whose first event may be a
  // while coming), or with the first event (a run, which may yet fail before it: with
  // nothing sent, it can still answer a plain JSON error).
  enum class Head { now, with_first_event };

  // `client_closed` may be empty; when set, idle() asks it through a ClientWatch: a
  // stream of deltas already learns of a closed client from its writes, and probing
  // at every delta was one recv per delta at 2,000 streams. `client_fd` is the
  // connection's socket (RequestContext::client_socket).
  SseStream(Response& response, std::chrono::milliseconds ping_interval,
            std::function<bool()> client_closed, int client_fd, Head head = Head::now);
  // Sends what is still queued; a stream that lost its client also ends its connection
  // (a response cut mid-chunk cannot be followed by another on that connection).
  ~SseStream() override;
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;

  // `ended`, asked before each write and at each idle() once the head is out, ends the
  // stream as a departed client does once it is true, e.g. when the stream's token is
  // revoked. One call per event: keep it cheap.
  void end_when(std::function<bool()> ended) { ended_ = std::move(ended); }

  // Sends the head if no event did yet: a stream with nothing to send is still one.
  bool begin() override { return head_sent_ || send_head(); }
  bool send(const std::string& event) override;
  // With `id: <seq>` before its data when ids are on (numbered_events): a browser's
  // EventSource then resumes after the last it saw on its own (Last-Event-ID).
  bool send_numbered(const std::string& event, int64_t seq) override;
  void numbered_events() { numbered_ = true; }
  bool send_named(std::string_view name, const std::string& event) override;
  bool idle() override;  // sends ": ping" when due, and what a slow client left queued
  bool gone() const { return gone_; }

 private:
  bool write(const std::string& text);
  bool send_head();

  Response& response_;
  int fd_;
  bool numbered_ = false;
  ChunkWriter writer_;
  std::chrono::milliseconds ping_interval_;
  std::chrono::steady_clock::time_point last_write_;
  ClientWatch client_;
  std::function<bool()> ended_;
  bool gone_ = false;
  bool head_sent_ = false;
};

}  // namespace agentrt::server
