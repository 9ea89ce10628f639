// The chunk writer over a real socket pair: chunks framed as HTTP/1.1 chunked
// encoding, a thread other than the owner never blocks on a full socket, the owner
// drains what others queued, and a reader that never reads counts as gone after the
// send timeout.
#include "server/http/chunk_writer.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace agentrt::server {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct SocketPair {
  int writer = -1, reader = -1;
  explicit SocketPair(std::chrono::milliseconds send_timeout = 300ms) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    writer = fds[0];
    reader = fds[1];
    int small = 4096;  // a full socket after a few chunks
    ::setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    timeval tv{0, static_cast<suseconds_t>(send_timeout.count() * 1000)};
    ::setsockopt(writer, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  ~SocketPair() {
    ::close(writer);
    ::close(reader);
  }
  std::string read_all_available() {
    std::string out;
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(reader, buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }
};

TEST(ChunkWriter, FramesEachWriteAsOneChunk) {
  SocketPair pair;
  ChunkWriter writer(pair.writer);
  EXPECT_TRUE(writer.write("data: {}\n\n"));
  EXPECT_TRUE(writer.write(std::string(300, 'x')));
  EXPECT_TRUE(writer.write(""));  // never the empty chunk that ends a response
  EXPECT_EQ(pair.read_all_available(),
            "A\r\ndata: {}\n\n\r\n12C\r\n" + std::string(300, 'x') + "\r\n");
}

TEST(ChunkWriter, SizeLinesAreUpperCaseHexWithEveryDigit) {
  for (size_t size : {1, 15, 16, 255, 256, 4095, 65535, 65536, 1048575}) {
    SocketPair pair(5s);
    char size_line[24];
    std::snprintf(size_line, sizeof size_line, "%zX\r\n", size);
    const std::string expected = size_line + std::string(size, 'z') + "\r\n";
    std::string received;
    std::thread reader([&] {
      char buf[65536];
      while (received.size() < expected.size()) {
        ssize_t n = ::recv(pair.reader, buf, sizeof buf, 0);
        if (n <= 0) return;
        received.append(buf, static_cast<size_t>(n));
      }
    });
    ChunkWriter writer(pair.writer);
    EXPECT_TRUE(writer.write(std::string(size, 'z')));
    reader.join();
    EXPECT_EQ(received, expected) << size;
  }
}

TEST(ChunkWriter, AnotherThreadQueuesInsteadOfBlockingAndTheOwnerDrains) {
  SocketPair pair(2000ms);
  ChunkWriter writer(pair.writer);
  const std::string piece(1000, 'y');  // "3E8\r\n" + 1000 bytes + "\r\n": 1007 a chunk
  size_t written = 0;
  Clock::duration longest{};
  std::thread producer([&] {
    for (int i = 0; i < 200; ++i) {
      auto t0 = Clock::now();
      ASSERT_TRUE(writer.write(piece));
      longest = std::max(longest, Clock::now() - t0);
      ++written;
    }
  });
  producer.join();
  EXPECT_EQ(written, 200u);
  EXPECT_LT(longest, 100ms) << "a non-owner thread blocked on the full socket";
  EXPECT_GT(writer.queued(), 0u) << "the socket took everything: the test proves nothing";

  std::string received;
  std::thread reader([&] {
    auto until = Clock::now() + 3s;
    while (received.size() < 200 * (piece.size() + 7) && Clock::now() < until) {
      received += pair.read_all_available();
      std::this_thread::sleep_for(1ms);
    }
  });
  EXPECT_TRUE(writer.write("end"));  // the owner: waits until everything is out
  EXPECT_EQ(writer.queued(), 0u);
  reader.join();
  received += pair.read_all_available();
  EXPECT_EQ(received.size(), 200 * (piece.size() + 7) + 8);
  EXPECT_EQ(received.substr(received.size() - 8), "3\r\nend\r\n");
}

TEST(ChunkWriter, AReaderThatNeverReadsIsGoneAfterTheSendTimeout) {
  SocketPair pair(300ms);
  ChunkWriter writer(pair.writer);
  const std::string piece(4000, 'z');
  const auto started = Clock::now();
  bool ok = true;
  for (int i = 0; i < 1000 && ok; ++i) ok = writer.write(piece);  // the owner blocks
  EXPECT_FALSE(ok);
  EXPECT_TRUE(writer.gone());
  EXPECT_GE(Clock::now() - started, 250ms);
  EXPECT_LT(Clock::now() - started, 3s);
}

TEST(ChunkWriter, ANonOwnerSeesAStalledReaderGoneOnceTheTimeoutPassed) {
  SocketPair pair(200ms);
  ChunkWriter writer(pair.writer);
  std::thread producer([&] {
    const std::string piece(4000, 'z');
    while (writer.write(piece) && writer.queued() == 0) {
    }
    EXPECT_FALSE(writer.gone()) << "queued, not yet gone";
    std::this_thread::sleep_for(300ms);
    EXPECT_FALSE(writer.flush()) << "no progress for longer than the send timeout";
  });
  producer.join();
  EXPECT_TRUE(writer.gone());
}

TEST(ChunkWriter, AClosedPeerIsGone) {
  SocketPair pair;
  ChunkWriter writer(pair.writer);
  ::shutdown(pair.reader, SHUT_RDWR);
  ::close(pair.reader);
  pair.reader = ::dup(pair.writer);  // keep the destructor's close harmless
  bool ok = true;
  for (int i = 0; i < 10 && ok; ++i) ok = writer.write("data");
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace agentrt::server
