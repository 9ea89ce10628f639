#include "tests/fakes/fake_server.h"

#include "tests/fakes/fake_connection.h"

#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <memory>

namespace agentrt::test {

FakeServer::FakeServer(Vendor vendor) : vendor_(vendor), dialect_(make_dialect(vendor)) {
  listener_.bind(Poco::Net::SocketAddress("127.0.0.1", 0), /*reuseAddress=*/true);
  // Room for a burst of connects as large as agentd's thread pool in the tests (200):
  // with 128, the connects past it had their SYN dropped and retried after a second,
  // beyond the tests' 1 s connect timeout (DescriptorBudget failed 1 run in 5).
  listener_.listen(1024);
  port_ = listener_.address().port();
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeServer::~FakeServer() {
  stopping_ = true;
  acceptor_.join();
  std::vector<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connections.swap(connections_);
  }
  for (std::thread& t : connections) t.join();
  listener_.close();
}

void FakeServer::accept_loop() {
  while (!stopping_) {
    try {
      if (!listener_.poll(Poco::Timespan(0, 20 * 1000), Poco::Net::Socket::SELECT_READ)) continue;
      // The connection's thread gets the only handle to the socket, so the socket is
      // freed on that thread. Shared with this one, it would be freed by whichever thread
      // dropped the last reference, counted inside libPocoNet, where ThreadSanitizer
      // cannot see the count that orders the other thread's use before the free.
      auto socket = std::make_unique<Poco::Net::StreamSocket>(listener_.acceptConnection());
      socket->setNoDelay(true);
      std::lock_guard<std::mutex> lock(mutex_);
      ++accepted_;
      connections_.emplace_back(
          [this, socket = std::move(socket)] { Connection(*this, *socket).run(); });
    } catch (const Poco::Exception&) {
      // A connection that failed during accept is the client's problem; keep serving.
    }
  }
}

Reply FakeServer::reply_for(const RecordedRequest& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  requests_.push_back(request);
  changed_.notify_all();
  if (std::optional<Reply> refusal = dialect_->refuse(request, required_key_)) return *refusal;
  if (responder_) {
    auto responder = responder_;
    lock.unlock();  // the responder may take its time; other connections go on
    return responder(request);
  }
  if (queue_.empty()) return default_;
  Reply next = std::move(queue_.front());
  queue_.pop_front();
  return next;
}

void FakeServer::note_abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++aborts_;
  changed_.notify_all();
}

void FakeServer::note_stream_size(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_stream_size_ = bytes;
}

size_t FakeServer::last_stream_size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_stream_size_;
}

void FakeServer::require_key(std::string key) {
  std::lock_guard<std::mutex> lock(mutex_);
  required_key_ = std::move(key);
}

void FakeServer::set_default(Reply reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  default_ = std::move(reply);
}

void FakeServer::enqueue(Reply reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(reply));
}

void FakeServer::set_responder(std::function<Reply(const RecordedRequest&)> responder) {
  std::lock_guard<std::mutex> lock(mutex_);
  responder_ = std::move(responder);
}

std::vector<RecordedRequest> FakeServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

bool FakeServer::wait_for_requests(size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
}

size_t FakeServer::client_aborts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return aborts_;
}

bool FakeServer::wait_for_client_abort(std::chrono::milliseconds timeout, size_t count) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return aborts_ >= count; });
}

size_t FakeServer::connections_accepted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return accepted_;
}

}  // namespace agentrt::test
