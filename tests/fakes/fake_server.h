// The state behind a FakeUpstream: the listening socket, the connection threads, the
// scripted replies and what was recorded. Connections call into it from their own
// threads, so every member is guarded.
#pragma once

#include "tests/fakes/dialect.h"
#include "tests/fakes/fake_upstream.h"

#include <Poco/Net/ServerSocket.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace agentrt::test {

class FakeServer {
 public:
  explicit FakeServer(Vendor vendor);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  Vendor vendor() const { return vendor_; }
  const Dialect& dialect() const { return *dialect_; }
  uint16_t port() const { return port_; }
  bool stopping() const { return stopping_; }

  // Records `request` and decides its reply: the service's refusal if it would
  // refuse, else the responder's, the next queued, or the default reply.
  Reply reply_for(const RecordedRequest& request);
  void note_abort();
  void note_stream_size(size_t bytes);

  void require_key(std::string key);
  void set_default(Reply reply);
  void enqueue(Reply reply);
  void set_responder(std::function<Reply(const RecordedRequest&)> responder);

  std::vector<RecordedRequest> requests() const;
  bool wait_for_requests(size_t count, std::chrono::milliseconds timeout) const;
  size_t client_aborts() const;
  bool wait_for_client_abort(std::chrono::milliseconds timeout, size_t count) const;
  size_t connections_accepted() const;
  size_t last_stream_size() const;

 private:
  void accept_loop();

  const Vendor vendor_;
  const std::unique_ptr<Dialect> dialect_;
  Poco::Net::ServerSocket listener_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string required_key_;
  Reply default_;
  std::deque<Reply> queue_;
  std::function<Reply(const RecordedRequest&)> responder_;
  std::vector<RecordedRequest> requests_;
  size_t aborts_ = 0;
  size_t accepted_ = 0;
  size_t last_stream_size_ = 0;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace agentrt::test
