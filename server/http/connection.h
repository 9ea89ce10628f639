// One client connection: the request loop of Poco's HTTPServerConnection, owned here so
// that every response goes through the pipeline. Poco's own loop answers a request it
// cannot parse with a bare 400 (no body, no request id) and invites every
// "Expect: 100-continue" body, even one the pipeline will refuse.
#pragma once

#include "server/http/idle_shedding.h"
#include "server/http/pipeline.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Timespan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

namespace agentrt::server {

class ApiConnection;

// The open connections, so that a shutdown can end them all, idle keep-alives included.
class ConnectionSet {
 public:
  void add(ApiConnection& connection);
  void remove(ApiConnection& connection);
  // Ends every open connection and every one that opens later: their sockets are shut,
  // so idle ones end at once and running requests fail on their next read or write.
  void stop_all();
  // Ends `count` connections that are waiting on their clients (idle_shedding.h), and
  // leaves what it could not end to the next ones to wait. A scan of the open
  // connections, done only when every thread is taken.
  void shed(int count);
  // The connections owed (WaitMark).
  std::atomic<int>& owed() { return owed_; }

 private:
  std::mutex mutex_;
  std::set<ApiConnection*> open_;
  bool stopping_ = false;
  std::atomic<int> owed_{0};
};

// The time limits of one connection beside Poco's own (receive, keep-alive).
struct ConnectionTimes {
  Poco::Timespan send;     // a client that stops reading
  Poco::Timespan request;  // a request's head and body, arriving whole
  // How long an accepted connection may wait for its first byte: the keep-alive time,
  // or, when the kernel already held it until data came (TCP_DEFER_ACCEPT), a short
  // grace, since one accepted without data has been silent that long already.
  Poco::Timespan first_byte;
};

class ApiConnection : public Poco::Net::TCPServerConnection {
 public:
  ApiConnection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                std::shared_ptr<RequestPipeline> pipeline, std::shared_ptr<ConnectionSet> set,
                const ConnectionTimes& times);
  ~ApiConnection() override;

  void run() override;
  // From any thread.
  void stop();
  // From any thread: ends the connection if it is waiting on its client; true if so.
  bool shed();

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  std::shared_ptr<RequestPipeline> pipeline_;
  std::shared_ptr<ConnectionSet> set_;
  ConnectionTimes times_;
  WaitMark mark_;
  std::atomic<bool> stopped_{false};
};

class ApiConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  ApiConnectionFactory(Poco::Net::HTTPServerParams::Ptr params,
                       std::shared_ptr<RequestPipeline> pipeline,
                       std::shared_ptr<ConnectionSet> set, const ConnectionTimes& times);

  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override;

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  std::shared_ptr<RequestPipeline> pipeline_;
  std::shared_ptr<ConnectionSet> set_;
  ConnectionTimes times_;
};

}  // namespace agentrt::server
