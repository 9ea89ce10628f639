// The server session's byte reader (server/http/server_session.h) over a real socket:
// bytes from 0x80 up, 0xFF included, are bytes, and only the connection's end is EOF.
#include "server/http/server_session.h"
#include "server/http/request_head.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/StreamSocketImpl.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>

namespace agentrt::server {
namespace {

// A session whose client sent `bytes` and closed its side.
class SentSession {
 public:
  explicit SentSession(const std::string& bytes) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    EXPECT_EQ(::send(fds[1], bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    ::close(fds[1]);
    session_.emplace(Poco::Net::StreamSocket(new Poco::Net::StreamSocketImpl(fds[0])),
                     new Poco::Net::HTTPServerParams, Poco::Timespan(5, 0), Poco::Timespan(5, 0),
                     mark_);
    session_->start_request();
  }
  ServerSession& operator*() { return *session_; }

 private:
  std::atomic<int> owed_{0};
  WaitMark mark_{owed_};
  std::optional<ServerSession> session_;
};

TEST(ServerSession, ReadsBytesFrom0x80UpAsBytesAndOnlyTheEndAsEof) {
  SentSession session(std::string("a\x80\xfe\xff", 4));
  EXPECT_EQ((*session).next_byte(), 'a');
  EXPECT_EQ((*session).next_byte(), 0x80);
  EXPECT_EQ((*session).next_byte(), 0xfe);
  EXPECT_EQ((*session).next_byte(), 0xff);
  EXPECT_EQ((*session).next_byte(), EOF);
}

// A field value may hold obs-text (RFC 9110 5.5); 0xFF once read as the connection's
// end, and the head was refused as malformed where the same bytes in memory were not.
TEST(ServerSession, AHeadWithObsTextReadsAsTheSameBytesInMemoryDo) {
  const std::string head = "GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\xe9 \xff\r\n\r\n";
  SentSession session(head);
  Poco::Net::HTTPRequest from_socket, from_memory;
  ASSERT_NO_THROW(read_request_head(*session, from_socket));
  ASSERT_EQ(parse_request_head(head, from_memory), head.size());
  EXPECT_EQ(from_socket.get("X-Name"), "caf\xe9 \xff");
  EXPECT_EQ(from_socket.get("X-Name"), from_memory.get("X-Name"));
}

}  // namespace
}  // namespace agentrt::server
