#include "server/http/body_reader.h"

#include "server/http/api_request.h"

#include <Poco/Exception.h>
#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <istream>

namespace agentrt::server {

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;

ApiError too_large(uint64_t limit) {
  return ApiError(ErrorCode::payload_too_large,
                  "request body exceeds the limit of " + std::to_string(limit) + " bytes");
}

// Reads until end of stream or until more than `limit` bytes arrived.
void read_up_to(std::istream& in, uint64_t limit, RequestBody& body) {
  // Poco reports a malformed chunk or a receive timeout by throwing inside the stream
  // buffer; with badbit in the mask the istream passes that on instead of hiding it.
  in.exceptions(std::ios::badbit);
  char buffer[kReadChunk];
  while (in) {
    in.read(buffer, sizeof buffer);
    body.data.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.data.size() > limit) {
      body.error = too_large(limit);
      body.unread_bytes = true;
      return;
    }
  }
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
      read_up_to(request.stream(), limit, body);
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
