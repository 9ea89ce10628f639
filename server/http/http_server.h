// The HTTP server: Poco's TCPServer on a thread pool of its own, serving connections
// whose request loop is ours (connection.h). Poco holds one pooled thread per connection
// for its whole keep-alive life, so the pool is sized for streams (config server.threads)
// with small stacks, and every accepted socket gets a send timeout so a client that
// stops reading frees its thread.
#pragma once

#include "core/config/config.h"
#include "server/http/pipeline.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace agentrt::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: an ephemeral port, see HttpServer::port()
  unsigned threads = 1024;
  unsigned max_queued = 4096;
  unsigned thread_stack_kb = 256;
  unsigned keep_alive_timeout_s = 5;
  unsigned receive_timeout_s = 30;
  unsigned send_timeout_s = 30;
  unsigned request_timeout_s = 30;
  unsigned thread_idle_s = 60;

  // server.* and the listen address of a loaded config; throws core::ConfigError for a
  // listen address that does not parse.
  static HttpServerOptions from_config(const core::Config& config);
};

// A listening socket bound ahead of the server that accepts on it. agentd binds before
// its engine opens the data dir: otherwise a start that cannot listen would make the
// stores, run their upgrades and mint the first admin token first. Clients that connect
// meanwhile wait in the backlog.
class ListenSocket {
 public:
  // Binds and listens. Throws std::runtime_error naming the address when it cannot.
  explicit ListenSocket(const HttpServerOptions& options);
  ~ListenSocket();
  ListenSocket(ListenSocket&&) noexcept;
  ListenSocket& operator=(ListenSocket&&) = delete;

 private:
  friend class HttpServer;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, std::shared_ptr<RequestPipeline> pipeline);
  // Stops at once if still running: open connections are cut.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting. Throws std::runtime_error naming the address when it
  // cannot bind.
  void start();
  // Starts accepting on a socket bound before.
  void start(ListenSocket bound);

  // The bound address with the actual port, e.g. "127.0.0.1:43817".
  std::string address() const;
  uint16_t port() const;

  struct ShutdownResult {
    bool finished = true;  // every running request ended within the grace period
    bool released = true;  // every connection thread let go; false: a handler is stuck
  };

  // Graceful stop: refuse new connections, let running requests finish for up to
  // `grace` (responses now close their connections), then close every connection
  // (idle keep-alives at once; requests still running are cut) and wait briefly for
  // their threads.
  // `grace_expired` runs when requests are still active at the end of the grace period,
  // to make long streams finish on their own before their connections are cut.
  // `hurry`, polled while the grace lasts, ends it early when true (a second SIGTERM).
  ShutdownResult shutdown(std::chrono::milliseconds grace,
                          const std::function<void()>& grace_expired = {},
                          const std::function<bool()>& hurry = {});

  int current_connections() const;

 private:
  struct Impl;  // keeps Poco's server headers out of every includer
  HttpServerOptions options_;
  std::shared_ptr<RequestPipeline> pipeline_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentrt::server
