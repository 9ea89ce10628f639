// A streaming client that stops reading, with the provider's deltas sent from the
// provider's own threads (ABI 1.2): those threads serve every stream of the provider,
// so the stalled client must cost the others nothing, and must itself be let go (its
// run stopped and stored) once its queue stops draining.
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <optional>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

AgentdOptions short_send_timeout(const TempDir& dir) {
  return with_args({"--config", dir.write("config.json", R"({"server":{"send_timeout_s":1}})")});
}

// A connection whose reader never reads, its receive buffer made small before it
// connects (later, the window it advertised would already be large).
class UnreadConnection {
 public:
  explicit UnreadConnection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    int small = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("cannot connect");
  }
  ~UnreadConnection() { ::close(fd_); }
  void post_run(const std::string& token, const json& body) {
    const std::string payload = body.dump();
    const std::string request =
        "POST /run HTTP/1.1\r\nHost: agentd\r\nAuthorization: Bearer " + token +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(payload.size()) +
        "\r\n\r\n" + payload;
    ASSERT_EQ(::send(fd_, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
  }
  // Reads what was sent until the server ends the connection, keeping the last bytes;
  // nullopt when it is still open after `wait`.
  std::optional<std::string> read_until_closed(std::chrono::milliseconds wait) {
    const auto until = Clock::now() + wait;
    std::string tail;
    char buffer[65536];
    while (Clock::now() < until) {
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        return tail;
      if (n < 0) {
        std::this_thread::sleep_for(1ms);
        continue;
      }
      tail.append(buffer, static_cast<size_t>(n));
      if (tail.size() > 64) tail.erase(0, tail.size() - 64);
    }
    return std::nullopt;
  }

 private:
  int fd_;
};

TEST(SlowClient, AStalledStreamNeitherHoldsUpOthersNorStaysForever) {
  TempDir dir;
  VendorSetup s(Vendor::openai, short_send_timeout(dir));
  // 8 MiB of answer for the stalled client, more than its socket and queue take.
  s.fake.enqueue(Reply::answer(std::string(8 << 20, 'x'), 2048));
  Reply paced = Reply::answer("one two three four five six", 6);
  paced.delta_delay = 50ms;
  s.fake.set_default(paced);

  UnreadConnection stalled(s.agentd.port());
  stalled.post_run(s.admin, s.body("flood me", {{"session_id", "stalled"}}));
  for (auto until = Clock::now() + 5s; s.fake.request_count() < 1 && Clock::now() < until;)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(s.fake.request_count(), 1u);
  std::this_thread::sleep_for(200ms);  // the flood fills every buffer on the way

  // Streams on the same provider, some on the stalled stream's thread: each runs at the
  // upstream's pace (6 deltas 50 ms apart), not at the stalled client's.
  std::vector<std::future<std::pair<std::string, Clock::duration>>> others;
  for (int i = 0; i < 4; ++i)
    others.push_back(std::async(std::launch::async, [&s, i] {
      auto started = Clock::now();
      auto stream = open_run(s.agentd, s.admin, s.body("pace " + std::to_string(i)));
      auto text = joined_text(stream->rest());
      return std::make_pair(text, Clock::now() - started);
    }));
  for (auto& other : others) {
    auto [text, took] = other.get();
    EXPECT_EQ(text, "one two three four five six");
    EXPECT_LT(took, 900ms) << "a stream waited on the stalled client: "
                           << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                           << " ms";
  }

  // The stalled client is let go: its run ends and is stored with what it streamed.
  json stored;
  for (auto until = Clock::now() + 10s; Clock::now() < until; std::this_thread::sleep_for(50ms)) {
    stored = call(s.agentd, "GET", "/sessions/stalled/messages", s.admin).json();
    if (stored.contains("data") && stored["data"].size() == 2) break;
  }
  ASSERT_EQ(stored["data"].size(), 2u) << stored.dump().substr(0, 300);
  EXPECT_EQ(stored["data"][1]["role"], "assistant");
  // Its response was cut mid-stream: the connection ends without the last chunk, so
  // the client cannot take the cut stream for a whole one, nor send another request on
  // it, even though it reads again at once.
  auto tail = stalled.read_until_closed(5s);
  ASSERT_TRUE(tail) << "the connection stayed open";
  EXPECT_FALSE(tail->size() >= 5 && tail->compare(tail->size() - 5, 5, "0\r\n\r\n") == 0)
      << "a cut stream ended like a whole one";
  auto again =
      call(s.agentd, "POST", "/chat", s.admin, s.body("still there?", {{"session_id", "stalled"}}));
  EXPECT_EQ(again.status, 200) << "the session stayed busy: " << again.body.substr(0, 200);
}

}  // namespace
}  // namespace agentrt::test
