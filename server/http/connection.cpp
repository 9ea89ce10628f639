#include "server/http/connection.h"

#include "core/log/logger.h"
#include "server/http/api_request.h"
#include "server/http/body_reader.h"
#include "server/http/http_date.h"
#include "server/http/server_session.h"

#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/NetException.h>

namespace agentrt::server {

void ConnectionSet::add(ApiConnection& connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_.insert(&connection);
  if (stopping_) connection.stop();
}

void ConnectionSet::remove(ApiConnection& connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_.erase(&connection);
}

void ConnectionSet::stop_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  for (ApiConnection* connection : open_) connection->stop();
}

void ConnectionSet::shed(int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = open_.begin(); count > 0 && it != open_.end(); ++it)
    if ((*it)->shed()) --count;
  // The most owed, not a sum: each accepted connection asks for all that are queued.
  for (int owed = owed_.load(); owed < count && !owed_.compare_exchange_weak(owed, count);) {
  }
}

ApiConnection::ApiConnection(const Poco::Net::StreamSocket& socket,
                             Poco::Net::HTTPServerParams::Ptr params,
                             std::shared_ptr<RequestPipeline> pipeline,
                             std::shared_ptr<ConnectionSet> set, const ConnectionTimes& times)
    : TCPServerConnection(socket),
      params_(std::move(params)),
      pipeline_(std::move(pipeline)),
      set_(std::move(set)),
      times_(times),
      mark_(set_->owed()) {
  set_->add(*this);
}

ApiConnection::~ApiConnection() {
  set_->remove(*this);
}

void ApiConnection::stop() {
  stopped_ = true;
  try {
    socket().shutdown();
  } catch (const Poco::Exception&) {
    // Already closed by the peer: the loop ends by itself.
  }
}

bool ApiConnection::shed() {
  // A request that has come in is served, even if its thread has not looked yet.
  try {
    if (socket().available() > 0) return false;
  } catch (const Poco::Exception&) {
    // Closed by the peer: shedding it costs nobody anything.
  }
  if (!mark_.shed()) return false;
  try {
    socket().shutdown();  // its poll returns, and it finds itself shed
  } catch (const Poco::Exception&) {
    // Already closed by the peer: the loop ends by itself.
  }
  return true;
}

void ApiConnection::run() {
  ServerSession session(socket(), params_, times_.request, times_.first_byte, mark_);
  const uint64_t limit = pipeline_->options().max_body_bytes;
  while (!stopped_ && session.more_requests()) {
    session.start_request();
    try {
      Poco::Net::HTTPServerResponseImpl response(session);
      ApiRequest request(session, response, *params_);
      // Any third word of the request line is taken as the version: "this is not
      // http" must not be answered as "not 400 Bad Request".
      if (request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_1 &&
          request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_0)
        throw Poco::Net::MessageException("unsupported HTTP version");
      response.set("Date", http_date_now());
      response.setVersion(request.getVersion());
      response.setKeepAlive(params_->getKeepAlive() && request.head().keep_alive &&
                            session.can_keep_alive());
      // Invite the body only when it will be read: a refused one is never sent.
      if (request.head().expect_continue && !announces_body_over(request, limit))
        response.sendContinue();
      pipeline_->handle(request, response);
      session.setKeepAlive(params_->getKeepAlive() && response.getKeepAlive() &&
                           session.can_keep_alive());
    } catch (const Poco::Net::NoMessageException&) {
      break;  // the client closed an idle connection
    } catch (const Poco::Exception& e) {
      // A network failure (reset, timeout) leaves nobody to answer. Anything else is a
      // request Poco could not parse: a bad request line or header, a Content-Length
      // that is not a number.
      if (session.networkException() == nullptr) {
        Poco::Net::HTTPServerResponseImpl response(session);
        response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
        response.set("Date", http_date_now());
        // A timeout the session did not record as a network failure is its deadline,
        // whose message is for the client (server_session.cpp).
        const bool late = dynamic_cast<const Poco::TimeoutException*>(&e) != nullptr;
        // The head reader's reasons are fixed words (request_head.cpp), never the
        // client's bytes, and tell a client what to mend ("no Host field").
        const bool ours = dynamic_cast<const Poco::Net::MessageException*>(&e) != nullptr;
        std::string message = "malformed HTTP request";
        if (late) message = e.message();
        if (ours && !e.message().empty()) message += ": " + e.message();
        pipeline_->reject_malformed(response, e.displayText(), message);
      } else {
        core::log_debug("connection ended", {{"error", e.displayText()}});
      }
      break;
    }
  }
}

ApiConnectionFactory::ApiConnectionFactory(Poco::Net::HTTPServerParams::Ptr params,
                                           std::shared_ptr<RequestPipeline> pipeline,
                                           std::shared_ptr<ConnectionSet> set,
                                           const ConnectionTimes& times)
    : params_(std::move(params)),
      pipeline_(std::move(pipeline)),
      set_(std::move(set)),
      times_(times) {}

Poco::Net::TCPServerConnection* ApiConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  // Poco sets only a receive timeout. Without a send timeout a client that stops
  // reading holds its thread for as long as it likes.
  try {
    Poco::Net::StreamSocket(socket).setSendTimeout(times_.send);  // shares the descriptor
  } catch (const Poco::Exception&) {
    // The peer is already gone; the connection ends on its first read.
  }
  return new ApiConnection(socket, params_, pipeline_, set_, times_);
}

}  // namespace agentrt::server
