#include "tests/api/fake_mcp_http.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <condition_variable>
#include <sstream>

namespace agentrt::test {

struct FakeMcpHttp::State {
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::vector<Request> requests;
};

namespace {

using nlohmann::json;
using Poco::Net::HTTPResponse;

constexpr const char* kSession = "fake-session-1";

json result_of(const std::string& method) {
  if (method == "initialize")
    return {{"protocolVersion", "2025-06-18"},
            {"capabilities", {{"tools", json::object()}}},
            {"serverInfo", {{"name", "fake-http"}, {"version", "0"}}}};
  if (method == "tools/list")
    return {{"tools",
             {{{"name", "lookup"},
               {"description", "Looks things up"},
               {"inputSchema", {{"type", "object"}}}}}}};
  return json::object();  // ping
}

class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(std::shared_ptr<FakeMcpHttp::State> state) : state_(std::move(state)) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    std::ostringstream body;
    body << request.stream().rdbuf();
    const json message = json::parse(body.str(), nullptr, false);
    FakeMcpHttp::Request seen{request.getMethod(), "", {}};
    if (message.is_object() && message.contains("method") && message["method"].is_string())
      seen.rpc_method = message["method"];
    for (const auto& [name, value] : request) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      seen.headers[lower] = value;
    }
    {
      std::lock_guard lock(state_->mutex);
      state_->requests.push_back(seen);
    }
    state_->changed.notify_all();
    answer(seen, message, response);
  }

 private:
  static void answer(const FakeMcpHttp::Request& seen, const json& message,
                     Poco::Net::HTTPServerResponse& response) {
    if (seen.http_method != "POST" || !message.contains("id")) {  // DELETE, a notification
      response.setStatus(seen.http_method == "POST" ? HTTPResponse::HTTP_ACCEPTED
                                                    : HTTPResponse::HTTP_OK);
      response.setContentLength(0);
      response.send();
      return;
    }
    const std::string reply =
        json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", result_of(seen.rpc_method)}}
            .dump();
    if (seen.rpc_method == "initialize") response.set("Mcp-Session-Id", kSession);
    response.setContentType("application/json");
    response.sendBuffer(reply.data(), reply.size());
  }

  std::shared_ptr<FakeMcpHttp::State> state_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(std::shared_ptr<FakeMcpHttp::State> state) : state_(std::move(state)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(state_);
  }

 private:
  std::shared_ptr<FakeMcpHttp::State> state_;
};

}  // namespace

FakeMcpHttp::FakeMcpHttp() : state_(std::make_shared<State>()) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), socket,
                                                    new Poco::Net::HTTPServerParams);
  server_->start();
}

FakeMcpHttp::~FakeMcpHttp() {
  server_->stopAll(true);
}

std::string FakeMcpHttp::url() const {
  return "http://127.0.0.1:" + std::to_string(server_->port()) + "/mcp";
}

std::vector<FakeMcpHttp::Request> FakeMcpHttp::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests;
}

bool FakeMcpHttp::wait_for(const std::function<bool(const Request&)>& match,
                           std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->mutex);
  return state_->changed.wait_for(lock, timeout, [&] {
    for (const Request& request : state_->requests)
      if (match(request)) return true;
    return false;
  });
}

}  // namespace agentrt::test
