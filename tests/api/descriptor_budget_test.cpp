// A thread busy with a provider call holds four descriptors: the client's socket, the
// upstream connection, and the wake-up socket pair of its libcurl multi handle (both
// kept for the thread's life, the connection cached warm for the next call). agentd
// sizes its open-file limit from server.threads; counted at two a thread, concurrent
// provider calls ran out of descriptors (a failed connect, retried or failed) well
// before every thread was busy.
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;

constexpr int kThreads = 200;

// agentd starts from a low soft limit, as a login shell gives, and must raise it.
std::unique_ptr<VendorSetup> start_with_low_limit(const TempDir& dir) {
  struct rlimit mine {};
  if (::getrlimit(RLIMIT_NOFILE, &mine) != 0) throw std::runtime_error("getrlimit");
  struct rlimit low = mine;
  low.rlim_cur = 256;
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) throw std::runtime_error("setrlimit");
  const std::string config = R"({"server":{"threads":)" + std::to_string(kThreads) + "}}";
  try {
    auto setup = std::make_unique<VendorSetup>(
        Vendor::openai, with_args({"--config", dir.write("c.json", config)}), 4096,
        // The fake paces 200 streams on the same two cores as 200 clients and agentd's
        // 200 threads; under the sanitizers its pauses slip past the usual 500 ms stall
        // limit, which is not what this test is about.
        /*stall_timeout_ms=*/10000);
    ::setrlimit(RLIMIT_NOFILE, &mine);  // the agentd child inherited the low limit
    return setup;
  } catch (...) {
    ::setrlimit(RLIMIT_NOFILE, &mine);
    throw;
  }
}

TEST(DescriptorBudget, EveryThreadCanBeBusyWithAProviderCallAtOnce) {
  struct rlimit mine {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &mine), 0);
  if (mine.rlim_max != RLIM_INFINITY && mine.rlim_max < 8192)
    GTEST_SKIP() << "the hard open-file limit is too low to tell";
  TempDir dir;
  std::unique_ptr<VendorSetup> s = start_with_low_limit(dir);
  Reply slow = Reply::answer("all at once", 3);
  slow.delta_delay = 150ms;  // every call is still open when the last one starts
  s->fake.set_default(slow);
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kThreads; ++i)
    clients.emplace_back([&] {
      auto response = call(s->agentd, "POST", "/chat", s->admin, s->body("hi"));
      if (response.status == 200) ++answered;
    });
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(answered, kThreads);
  ASSERT_EQ(s->agentd.stop(SIGTERM), 0);
  for (const nlohmann::json& line : s->agentd.log_lines())
    EXPECT_NE(line.value("msg", ""), "provider call retried") << "a call failed: " << line.dump();
}

// Out of descriptors, agentd cannot accept, and its clients wait in the listen backlog.
// That must not go without a word in the log: it is an error line, at most one every few
// seconds, and service comes back once descriptors are free.
TEST(DescriptorBudget, RunningOutOfDescriptorsIsLoggedAndOutlived) {
  AgentdProcess agentd;
  ASSERT_EQ(agentd.request("GET", "/health").status, 200);
  struct rlimit before {};
  ASSERT_EQ(::prlimit(agentd.pid(), RLIMIT_NOFILE, nullptr, &before), 0);
  struct rlimit tight = before;
  tight.rlim_cur = agentd.open_descriptors() + 8;
  ASSERT_EQ(::prlimit(agentd.pid(), RLIMIT_NOFILE, &tight, nullptr), 0);
  {
    std::vector<std::unique_ptr<HttpConnection>> clients;
    // Each sends the start of a request: the kernel holds silent ones back.
    for (int i = 0; i < 40; ++i) {
      clients.push_back(std::make_unique<HttpConnection>(agentd.port()));
      clients.back()->send_raw("GET /health");
    }
    EXPECT_TRUE(agentd.wait_for_log([](const nlohmann::json& line) {
      return line.value("msg", "") == "cannot accept connections" &&
             line.value("level", "") == "error" &&
             line.value("error", "").find("Too many open files") != std::string::npos;
    })) << agentd.stderr_text();
    ASSERT_EQ(::prlimit(agentd.pid(), RLIMIT_NOFILE, &before, nullptr), 0);
  }
  EXPECT_EQ(agentd.request("GET", "/health").status, 200);
  size_t lines = 0;
  for (const nlohmann::json& line : agentd.log_lines())
    if (line.value("msg", "") == "cannot accept connections") ++lines;
  EXPECT_LE(lines, 2u) << "one line, not one per failed accept";
}

}  // namespace
}  // namespace agentrt::test
