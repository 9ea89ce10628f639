#include "server/http/body_reader.h"

#include "server/http/api_request.h"
#include "server/http/chunked_body.h"

#include <Poco/Exception.h>
#include <Poco/Net/StreamSocket.h>

#include <chrono>

namespace agentrt::server {

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;

ApiError too_large(uint64_t limit) {
  return ApiError(ErrorCode::payload_too_large,
                  "request body exceeds the limit of " + std::to_string(limit) + " bytes");
}

// The connection as a chunked body's source: framing bytes one at a time, data in
// runs, never a byte past the body.
class RequestSource final : public ChunkedSource {
 public:
  explicit RequestSource(ApiRequest& request) : request_(request) {}
  int next_byte() override { return request_.next_body_byte(); }
  std::size_t read_some(char* buffer, std::size_t length) override {
    return request_.read_body(buffer, length);
  }

 private:
  ApiRequest& request_;
};

void read_chunked(ApiRequest& request, uint64_t limit, RequestBody& body) {
  RequestSource source(request);
  const ChunkedResult result = read_chunked_body(source, limit, body.data);
  switch (result.status) {
    case ChunkedStatus::complete:
      return;
    case ChunkedStatus::too_large:
      body.error = too_large(limit);
      break;
    case ChunkedStatus::malformed:
      body.error = ApiError(ErrorCode::invalid_request,
                            std::string("malformed chunked request body: ") + result.problem);
      break;
    case ChunkedStatus::truncated:
      body.error = ApiError(ErrorCode::invalid_request, "request body ended before its last chunk");
      break;
  }
  body.unread_bytes = true;
}

// A Content-Length body, read straight from the connection; fewer bytes when the
// connection ends first.
void read_exactly(ApiRequest& request, std::size_t length, RequestBody& body) {
  body.data.resize(length);
  std::size_t got = 0;
  while (got < length) {
    const std::size_t n = request.read_body(body.data.data() + got, length - got);
    if (n == 0) break;
    got += n;
  }
  body.data.resize(got);
}

}  // namespace

bool announces_body_over(const ApiRequest& request, uint64_t limit) {
  const RequestHead& head = request.head();
  return !head.chunked && head.content_length && *head.content_length > limit;
}

RequestBody read_request_body(ApiRequest& request, uint64_t limit) {
  RequestBody body;
  const RequestHead& head = request.head();
  if (!head.chunked && !head.content_length) return body;
  const uint64_t length = head.content_length.value_or(0);
  if (!head.chunked) {
    if (length > limit) {
      body.error = too_large(limit);
      body.unread_bytes = length > 0;
      return body;
    }
    body.data.reserve(static_cast<std::size_t>(length));
  }
  try {
    if (head.chunked)
      read_chunked(request, limit, body);
    else
      read_exactly(request, static_cast<std::size_t>(length), body);
  } catch (const std::exception& e) {
    body.error = ApiError(ErrorCode::invalid_request,
                          dynamic_cast<const Poco::TimeoutException*>(&e) != nullptr
                              ? "timed out reading the request body"
                              : "could not read the request body");
    body.unread_bytes = true;
    return body;
  }
  if (!head.chunked && body.data.size() != length) {
    body.error = ApiError(ErrorCode::invalid_request, "request body ended before Content-Length");
    body.unread_bytes = true;
  }
  return body;
}

void discard_until_client_stops(ApiRequest& request, int budget_ms) {
  Poco::Net::StreamSocket& socket = request.socket();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
  try {
    socket.shutdownSend();
    socket.setReceiveTimeout(Poco::Timespan(0, 500 * 1000));
    char buffer[kReadChunk];
    while (std::chrono::steady_clock::now() < deadline) {
      if (socket.receiveBytes(buffer, sizeof buffer) <= 0) break;
    }
  } catch (const Poco::Exception&) {
    // A timeout or a reset: either way the client is done with us.
  }
}

}  // namespace agentrt::server
