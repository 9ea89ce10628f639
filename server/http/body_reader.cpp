#include "server/http/body_reader.h"

#include "server/http/api_request.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequest.h>
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

// A Content-Length that is present but not a non-negative number is -1.
int64_t declared_length(const Poco::Net::HTTPServerRequest& request) {
  try {
    const Poco::Int64 length = request.getContentLength64();
    return length < 0 ? -1 : length;
  } catch (const Poco::Exception&) {
    return -1;
  }
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

bool announces_body_over(const Poco::Net::HTTPServerRequest& request, uint64_t limit) {
  if (request.getChunkedTransferEncoding() || !request.hasContentLength()) return false;
  const int64_t length = declared_length(request);
  return length >= 0 && static_cast<uint64_t>(length) > limit;
}

RequestBody read_request_body(Poco::Net::HTTPServerRequest& request, uint64_t limit) {
  RequestBody body;
  const bool chunked = request.getChunkedTransferEncoding();
  if (!chunked && !request.hasContentLength()) return body;
  int64_t length = -1;
  if (!chunked) {
    length = declared_length(request);
    if (length < 0) {
      body.error = ApiError(ErrorCode::invalid_request, "malformed Content-Length header");
      body.unread_bytes = true;
      return body;
    }
    if (static_cast<uint64_t>(length) > limit) {
      body.error = too_large(limit);
      body.unread_bytes = length > 0;
      return body;
    }
    body.data.reserve(static_cast<std::size_t>(length));
  }
  try {
    auto* api = dynamic_cast<ApiRequest*>(&request);
    if (!chunked && api != nullptr)
      read_exactly(*api, static_cast<std::size_t>(length), body);
    else
      read_up_to(request.stream(), limit, body);
  } catch (const std::exception& e) {
    body.error = ApiError(ErrorCode::invalid_request,
                          dynamic_cast<const Poco::TimeoutException*>(&e) != nullptr
                              ? "timed out reading the request body"
                              : "could not read the request body");
    body.unread_bytes = true;
    return body;
  }
  if (!chunked && body.data.size() != static_cast<uint64_t>(length)) {
    body.error = ApiError(ErrorCode::invalid_request, "request body ended before Content-Length");
    body.unread_bytes = true;
  }
  return body;
}

void discard_until_client_stops(Poco::Net::HTTPServerRequest& request, int budget_ms) {
  auto* impl = dynamic_cast<ApiRequest*>(&request);
  if (impl == nullptr) return;
  Poco::Net::StreamSocket& socket = impl->socket();
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
