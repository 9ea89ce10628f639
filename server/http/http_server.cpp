#include "server/http/http_server.h"

#include "server/http/accept_errors.h"
#include "server/http/connection.h"
#include "server/http/idle_shedding.h"
#include "server/http/pool_housekeeper.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace agentrt::server {

namespace {

constexpr int kListenBacklog = 1024;
// After the grace period, how long cut connections get to release their threads.
constexpr std::chrono::milliseconds kReleaseWait{3000};
constexpr std::chrono::milliseconds kPollInterval{20};
constexpr unsigned kMaxDeferSeconds = 30;
constexpr long kGraceAfterDeferS = 1;

Poco::Timespan seconds(unsigned s) {
  return Poco::Timespan(static_cast<long>(s), 0);
}

Poco::Net::HTTPServerParams::Ptr make_params(const HttpServerOptions& options) {
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(static_cast<int>(options.threads));
  params->setMaxQueued(static_cast<int>(options.max_queued));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(seconds(options.keep_alive_timeout_s));
  params->setMaxKeepAliveRequests(0);  // unlimited
  params->setTimeout(seconds(options.receive_timeout_s));
  // How long a connection-serving loop waits for the next queued connection before it
  // hands its thread back to the pool; short, so a shutdown is not held up by it.
  params->setThreadIdleTime(Poco::Timespan(1, 0));
  return params;
}

// A fresh connection stays in the kernel until its first bytes arrive, or until `wait`
// has passed (rounded up to the SYN-ACK retransmission schedule: 1, 3, 7, 15, 31 s), so
// one that sends nothing holds no thread, and no descriptor, meanwhile: a client holding
// thousands of silent connections would otherwise take every thread. False where the
// system does not offer it.
bool defer_accept(Poco::Net::ServerSocket& socket, unsigned wait_s) {
  const int seconds = static_cast<int>(std::min(wait_s, kMaxDeferSeconds));
  return ::setsockopt(socket.impl()->sockfd(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds,
                      sizeof seconds) == 0;
}

// What a connection is allowed beside Poco's receive and keep-alive times. Accepted
// without data after the kernel held it, a connection has been silent for the
// keep-alive time already: a short grace covers one that raced its first bytes.
ConnectionTimes connection_times(const HttpServerOptions& options, bool deferred) {
  return {seconds(options.send_timeout_s), seconds(options.request_timeout_s),
          deferred ? Poco::Timespan(kGraceAfterDeferS, 0) : seconds(options.keep_alive_timeout_s)};
}

Poco::Net::ServerSocket bind_socket(const HttpServerOptions& options) {
  const std::string where = options.host + ":" + std::to_string(options.port);
  try {
    Poco::Net::ServerSocket socket;
    // SO_REUSEADDR for quick restarts, but not SO_REUSEPORT (Poco's default here): with
    // it a second agentd on the same port would start and silently share the traffic.
    socket.bind(Poco::Net::SocketAddress(options.host, options.port), true, false);
    socket.listen(kListenBacklog);
    return socket;
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("cannot listen on " + where + ": " + e.displayText());
  }
}

}  // namespace

struct HttpServer::Impl {
  std::unique_ptr<Poco::ThreadPool> pool;
  std::unique_ptr<PoolHousekeeper> housekeeper;
  std::shared_ptr<ConnectionSet> connections = std::make_shared<ConnectionSet>();
  std::unique_ptr<Poco::Net::TCPServer> server;
  Poco::Net::ServerSocket listener;
  Poco::Net::SocketAddress address;
  bool stopped = false;

  // Stops accepting and closes the listening socket, so that new clients are refused
  // instead of waiting in the backlog of a server that will never serve them.
  // Poco's acceptor waits for clients in polls of 250 ms and looks at its stop flag
  // between them, so a stop waited up to 250 ms (most of it soon after a start). Shut
  // down for reading, the socket reads as ready at once and accept() fails, and the
  // acceptor finds the flag; if it gets there first it only goes round again.
  void stop_accepting() {
    AcceptErrorLog::Stopping quiet;
    ::shutdown(listener.impl()->sockfd(), SHUT_RD);
    server->stop();  // joins the acceptor; connections queued for a thread are dropped
    listener.close();
  }

  // Closes every connection: idle keep-alives end at once, running requests are cut.
  void close_connections() { connections->stop_all(); }

  bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds budget) const {
    const auto deadline = std::chrono::steady_clock::now() + budget;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(kPollInterval);
    }
    return true;
  }
};

HttpServerOptions HttpServerOptions::from_config(const core::Config& config) {
  HttpServerOptions options;
  std::tie(options.host, options.port) = core::parse_listen_address(config.listen, "listen");
  options.threads = std::max(1u, config.server.threads);
  options.max_queued = config.server.max_queued;
  options.thread_stack_kb = config.server.thread_stack_kb;
  options.keep_alive_timeout_s = config.server.keep_alive_timeout_s;
  options.receive_timeout_s = config.server.receive_timeout_s;
  options.send_timeout_s = config.server.send_timeout_s;
  options.request_timeout_s = config.server.request_timeout_s;
  options.thread_idle_s = config.server.thread_idle_s;
  return options;
}

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<RequestPipeline> pipeline)
    : options_(std::move(options)),
      pipeline_(std::move(pipeline)),
      impl_(std::make_unique<Impl>()) {
  if (!pipeline_) throw std::invalid_argument("HttpServer needs a pipeline");
}

HttpServer::~HttpServer() {
  if (impl_->server && !impl_->stopped) {
    impl_->stopped = true;
    impl_->stop_accepting();
    impl_->close_connections();
    impl_->wait_for([this] { return impl_->server->currentConnections() == 0; }, kReleaseWait);
  }
  impl_->housekeeper.reset();
  impl_->server.reset();
  // Joins the pool's threads (Poco gives each up to 10 s) before the pipeline goes.
  impl_->pool.reset();
}

struct ListenSocket::Impl {
  Poco::Net::ServerSocket socket;
};

ListenSocket::ListenSocket(const HttpServerOptions& options)
    : impl_(std::make_unique<Impl>(Impl{bind_socket(options)})) {}

ListenSocket::~ListenSocket() = default;
ListenSocket::ListenSocket(ListenSocket&&) noexcept = default;

void HttpServer::start() {
  start(ListenSocket(options_));
}

void HttpServer::start(ListenSocket bound) {
  if (impl_->server) throw std::logic_error("HttpServer started twice");
  Poco::Net::ServerSocket socket = bound.impl_->socket;
  impl_->listener = socket;
  impl_->address = socket.address();
  const int threads = static_cast<int>(options_.threads);
  impl_->pool = std::make_unique<Poco::ThreadPool>(
      std::min(2, threads), threads, static_cast<int>(options_.thread_idle_s),
      static_cast<int>(options_.thread_stack_kb) * 1024);
  impl_->housekeeper = std::make_unique<PoolHousekeeper>(*impl_->pool);
  auto params = make_params(options_);
  impl_->server = std::make_unique<Poco::Net::TCPServer>(
      new ApiConnectionFactory(
          params, pipeline_, impl_->connections,
          connection_times(options_, defer_accept(socket, options_.keep_alive_timeout_s))),
      *impl_->pool, socket, params);
  Poco::AutoPtr<ShedWhenFull> shedding(new ShedWhenFull(impl_->connections));
  shedding->watch(impl_->server.get());
  impl_->server->setConnectionFilter(shedding);
  AcceptErrorLog::install();
  impl_->server->start();
}

std::string HttpServer::address() const {
  return impl_->address.toString();
}

uint16_t HttpServer::port() const {
  return impl_->address.port();
}

int HttpServer::current_connections() const {
  return impl_->server ? impl_->server->currentConnections() : 0;
}

HttpServer::ShutdownResult HttpServer::shutdown(std::chrono::milliseconds grace,
                                                const std::function<void()>& grace_expired,
                                                const std::function<bool()>& hurry) {
  if (!impl_->server || impl_->stopped) return {};
  impl_->stopped = true;
  pipeline_->begin_draining();
  impl_->stop_accepting();
  // Waits on running requests, not on connections: an idle keep-alive connection
  // would otherwise hold the shutdown for its whole keep-alive timeout.
  ShutdownResult result;
  bool hurried = false;
  impl_->wait_for(
      [&] {
        hurried = hurried || (hurry && hurry());
        return hurried || pipeline_->active_requests() == 0;
      },
      grace);
  result.finished = pipeline_->active_requests() == 0;
  if (!result.finished && grace_expired) {
    // Streams still running get to end properly (done: interrupted) before the cut.
    grace_expired();
    result.finished =
        impl_->wait_for([this] { return pipeline_->active_requests() == 0; }, kReleaseWait);
  }
  impl_->close_connections();
  result.released =
      impl_->wait_for([this] { return impl_->server->currentConnections() == 0; }, kReleaseWait);
  return result;
}

}  // namespace agentrt::server
