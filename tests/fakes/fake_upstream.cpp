#include "tests/fakes/fake_upstream.h"

#include "tests/fakes/dialect.h"
#include "tests/fakes/fake_server.h"

#include <Poco/Net/SocketAddress.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace agentrt::test {

const char* vendor_name(Vendor vendor) {
  switch (vendor) {
    case Vendor::openai:
      return "openai";
    case Vendor::anthropic:
      return "anthropic";
    case Vendor::ollama:
      return "ollama";
  }
  return "unknown";
}

Reply Reply::answer(std::string text, int deltas) {
  Reply r;
  r.text = std::move(text);
  r.deltas = deltas;
  return r;
}

Reply Reply::calling(std::vector<FakeToolCall> calls, std::string text) {
  Reply r = answer(std::move(text));
  r.tool_calls = std::move(calls);
  return r;
}

Reply Reply::failure(int status, std::string error_type, std::string message) {
  Reply r;
  r.kind = Kind::fail;
  r.status = status;
  r.error_type = std::move(error_type);
  r.error_message = std::move(message);
  return r;
}

Reply Reply::hang_after_headers(int after_deltas) {
  Reply r;
  r.kind = Kind::hang_after_headers;
  r.after_deltas = after_deltas;
  return r;
}

Reply Reply::hang_before_headers() {
  Reply r;
  r.kind = Kind::hang_before_headers;
  return r;
}

Reply Reply::reset_after(int deltas) {
  Reply r;
  r.kind = Kind::reset;
  r.after_deltas = deltas;
  return r;
}

Reply Reply::malformed_after(int deltas) {
  Reply r;
  r.kind = Kind::malformed;
  r.after_deltas = deltas;
  return r;
}

Reply Reply::error_event_after(int deltas, std::string error_type, std::string message) {
  Reply r;
  r.kind = Kind::error_event;
  r.after_deltas = deltas;
  r.error_type = std::move(error_type);
  r.error_message = std::move(message);
  return r;
}

Reply Reply::truncated_after(int deltas) {
  Reply r;
  r.kind = Kind::truncate;
  r.after_deltas = deltas;
  return r;
}

Reply& Reply::with_header(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

std::string RecordedRequest::header(const std::string& name) const {
  std::string key = name;
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto it = headers.find(key);
  return it == headers.end() ? "" : it->second;
}

nlohmann::json RecordedRequest::json() const {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

FakeUpstream::FakeUpstream(Vendor vendor) : server_(std::make_unique<FakeServer>(vendor)) {}

FakeUpstream::~FakeUpstream() = default;

Vendor FakeUpstream::vendor() const {
  return server_->vendor();
}

uint16_t FakeUpstream::port() const {
  return server_->port();
}

std::string FakeUpstream::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + server_->dialect().base_path();
}

void FakeUpstream::require_key(std::string key) {
  server_->require_key(std::move(key));
}

void FakeUpstream::set_default(Reply reply) {
  server_->set_default(std::move(reply));
}

void FakeUpstream::enqueue(Reply reply) {
  server_->enqueue(std::move(reply));
}

void FakeUpstream::set_responder(std::function<Reply(const RecordedRequest&)> responder) {
  server_->set_responder(std::move(responder));
}

std::vector<RecordedRequest> FakeUpstream::requests() const {
  return server_->requests();
}

RecordedRequest FakeUpstream::last_request() const {
  std::vector<RecordedRequest> all = requests();
  if (all.empty()) throw std::logic_error("the fake upstream has seen no request");
  return all.back();
}

size_t FakeUpstream::request_count() const {
  return requests().size();
}

bool FakeUpstream::wait_for_requests(size_t count, std::chrono::milliseconds timeout) const {
  return server_->wait_for_requests(count, timeout);
}

size_t FakeUpstream::client_aborts() const {
  return server_->client_aborts();
}

bool FakeUpstream::wait_for_client_abort(std::chrono::milliseconds timeout, size_t count) const {
  return server_->wait_for_client_abort(timeout, count);
}

size_t FakeUpstream::connections_accepted() const {
  return server_->connections_accepted();
}

size_t FakeUpstream::last_stream_size() const {
  return server_->last_stream_size();
}

std::vector<std::string> delta_fragments(const std::string& text, int deltas) {
  return split_utf8(text, deltas);
}

uint16_t unused_local_port() {
  Poco::Net::ServerSocket probe;
  probe.bind(Poco::Net::SocketAddress("127.0.0.1", 0), /*reuseAddress=*/false);
  uint16_t port = probe.address().port();
  probe.close();  // never listened: connecting to it is refused
  return port;
}

}  // namespace agentrt::test
