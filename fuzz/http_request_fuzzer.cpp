// Whole requests as a connection reads them (server/http/connection.cpp): the bytes go
// through a socket into the server's session, whose heads are read by ApiRequest and
// whose bodies by read_request_body (server/http/body_reader.h), request after request
// while the connection could go on. The same bytes are also read in memory, by
// parse_request_head and the chunked decoder, and the two readings must agree: each
// head the same, each body the same bytes, Content-Length bodies exact. A body that
// could not be taken must leave the connection closed (unread_bytes).
#include "fuzz/fuzz_support.h"
#include "server/http/api_request.h"
#include "server/http/body_reader.h"
#include "server/http/chunked_body.h"
#include "server/http/server_session.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/StreamSocketImpl.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

using namespace agentrt::server;

constexpr uint64_t kLimit = 4096;
constexpr std::size_t kMaxInput = 64 * 1024;  // within a socket pair's buffer
constexpr int kMaxRequests = 16;

// The in-memory reading of the same bytes: where the next request starts.
class MemoryReading {
 public:
  explicit MemoryReading(std::string_view bytes) : bytes_(bytes) {}

  // The head at the current position must be the one the session read.
  void expect_head(const ApiRequest& request) {
    Poco::Net::HTTPRequest head;
    RequestHead fields;
    std::size_t used = 0;
    try {
      used = parse_request_head(bytes_.substr(at_), head, &fields);
    } catch (const Poco::Exception&) {
      FUZZ_CHECK(false, "the bytes hold the head the session read");
    }
    FUZZ_CHECK(head.getMethod() == request.getMethod() && head.getURI() == request.getURI() &&
                   head.getVersion() == request.getVersion(),
               "the session reads the request line the bytes hold");
    FUZZ_CHECK(fields.chunked == request.head().chunked &&
                   fields.content_length == request.head().content_length,
               "the session reads the framing the bytes hold");
    auto field = request.begin();
    for (const auto& [name, value] : head) {
      FUZZ_CHECK(field != request.end() && field->first == name && field->second == value,
                 "the session reads the fields the bytes hold");
      ++field;
    }
    FUZZ_CHECK(field == request.end(), "the session reads no other field");
    at_ += used;
  }

  // The session refused what follows, as `Refusal` (a malformed head, or none at all):
  // so must the bytes in memory.
  template <class Refusal>
  void expect_refused() {
    Poco::Net::HTTPRequest head;
    bool refused = false;
    try {
      parse_request_head(bytes_.substr(at_), head);
    } catch (const Refusal&) {
      refused = true;
    } catch (const Poco::Exception&) {
    }
    FUZZ_CHECK(refused, "the bytes in memory are refused as the session refused them");
  }

  // The body after it must be the one read_request_body took, when it took one.
  void expect_body(const ApiRequest& request, const RequestBody& body) {
    const RequestHead& head = request.head();
    if (head.chunked) {
      Bytes source(bytes_.substr(at_));
      std::string data;
      const ChunkedResult result = read_chunked_body(source, kLimit, data);
      FUZZ_CHECK((result.status == ChunkedStatus::complete) == !body.error,
                 "a chunked body is taken where the bytes hold one");
      if (!body.error) FUZZ_CHECK(data == body.data, "a chunked body is the bytes' body");
      at_ += source.used;
    } else if (head.content_length) {
      const std::string_view rest = bytes_.substr(at_);
      if (!body.error) {
        FUZZ_CHECK(body.data.size() == *head.content_length, "a body has its Content-Length");
        FUZZ_CHECK(rest.substr(0, body.data.size()) == body.data, "a body is the bytes' body");
        at_ += body.data.size();
      } else {
        FUZZ_CHECK(*head.content_length > kLimit || rest.size() < *head.content_length,
                   "a Content-Length body is refused only when too large or cut short");
      }
    } else {
      FUZZ_CHECK(body.data.empty() && !body.error, "no framing, no body");
    }
  }

 private:
  struct Bytes final : ChunkedSource {
    explicit Bytes(std::string_view b) : bytes(b) {}
    int next_byte() override {
      return used < bytes.size() ? static_cast<unsigned char>(bytes[used++]) : EOF;
    }
    std::size_t read_some(char* buffer, std::size_t length) override {
      const std::size_t n = std::min(length, bytes.size() - used);
      bytes.copy(buffer, n, used);
      used += n;
      return n;
    }
    std::string_view bytes;
    std::size_t used = 0;
  };

  std::string_view bytes_;
  std::size_t at_ = 0;
};

// A connection whose client sent `bytes` and then closed its side.
Poco::Net::StreamSocket client_sent(std::string_view bytes) {
  int fds[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0, "a socket pair");
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fds[1], bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    FUZZ_CHECK(n > 0, "the client's bytes fit the socket");
    sent += static_cast<std::size_t>(n);
  }
  ::close(fds[1]);
  return Poco::Net::StreamSocket(new Poco::Net::StreamSocketImpl(fds[0]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static const Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  std::atomic<int> owed{0};
  WaitMark mark(owed);
  ServerSession session(client_sent(bytes), params, Poco::Timespan(10, 0), Poco::Timespan(10, 0),
                        mark);
  MemoryReading memory(bytes);
  for (int i = 0; i < kMaxRequests; ++i) {
    session.start_request();
    try {
      Poco::Net::HTTPServerResponseImpl response(session);
      ApiRequest request(session, response, *params);
      memory.expect_head(request);
      const RequestBody body = read_request_body(request, kLimit);
      FUZZ_CHECK(body.data.size() <= kLimit, "the limit holds");
      FUZZ_CHECK(!body.error || body.unread_bytes, "a body not taken closes the connection");
      memory.expect_body(request, body);
      if (body.unread_bytes || !request.head().keep_alive) break;
    } catch (const Poco::Net::NoMessageException&) {
      memory.expect_refused<Poco::Net::NoMessageException>();
      break;
    } catch (const Poco::Net::MessageException&) {
      memory.expect_refused<Poco::Net::MessageException>();
      break;  // answered 400 by the connection loop, which then closes
    }
  }
  return 0;
}
