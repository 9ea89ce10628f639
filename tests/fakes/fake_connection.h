// One accepted connection of a fake upstream: reads HTTP/1.1 requests (keep-alive)
// and answers each as its Reply says, byte for byte under the fake's control.
#pragma once

#include "tests/fakes/fake_server.h"

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <optional>
#include <string>

namespace agentrt::test {

class Connection {
 public:
  Connection(FakeServer& server, Poco::Net::StreamSocket socket);
  // Serves requests until the client closes, a reply ends the connection, or the
  // fake stops.
  void run();

 private:
  std::optional<RecordedRequest> read_request();
  bool receive_more();

  // Each returns false when the connection must end after it.
  bool respond(const RecordedRequest& request, const Reply& reply);
  bool send_failure(const Reply& reply);
  bool send_stream(const RecordedRequest& request, const Reply& reply);
  // The fault `reply` asks for: nullopt when the stream goes on after it, else
  // whether the connection stays open.
  std::optional<bool> send_fault(const StreamContext& ctx, const Reply& reply);
  bool send_events(const std::vector<std::string>& events);
  bool send_event(const std::string& event);
  bool send_raw(const std::string& bytes);
  bool end_body();

  // Waits `duration`; false (and an abort noted) once the client has gone, or false
  // when the fake stops.
  bool pause(std::chrono::milliseconds duration);
  bool hang();
  bool client_gone();
  void abort_noted();
  void reset();

  FakeServer& server_;
  Poco::Net::StreamSocket socket_;
  std::string buffer_;
  const Reply* reply_ = nullptr;  // the reply being sent, for its split points
  size_t body_offset_ = 0;        // body bytes of the current response written so far
  bool aborted_ = false;
};

}  // namespace agentrt::test
