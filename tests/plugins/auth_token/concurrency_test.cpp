// The plugin declares itself thread-safe, so the host calls it from many threads at
// once without a lock of its own.
#include "auth_token_fixture.h"

#include <atomic>
#include <thread>
#include <vector>

namespace agentrt::test {
namespace {

TEST_F(AuthTokenTest, ConcurrentVerifyIssueAndRevoke) {
  std::vector<json> good, victims;
  for (int i = 0; i < 8; ++i) good.push_back(issue_for("actor-" + std::to_string(i)));
  for (int i = 0; i < 20; ++i) victims.push_back(issue_for("victim"));

  std::atomic<int> wrong{0};
  std::atomic<int> verified{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const json& r = good[static_cast<size_t>(t + i) % good.size()];
        try {
          if (verify(r["token"])["actor"] != r["actor"]) ++wrong;
          ++verified;
          std::string forged = r["token"];
          forged.back() = forged.back() == 'A' ? 'B' : 'A';
          verify(forged);
          ++wrong;  // a forged token must never verify
        } catch (const core::PluginError& e) {
          if (std::string(e.what()) != "unknown token") ++wrong;
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) issue_for("late");
  });
  threads.emplace_back([&] {
    for (const json& v : victims) revoke(v["id"]);
  });
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(verified.load(), 6 * 200);
  for (const json& v : victims) EXPECT_EQ(verify_failure(v["token"]).message, "token revoked");
  EXPECT_EQ(list({{"limit", 500}})["data"].size(), 8u + 50u);
}

}  // namespace
}  // namespace agentrt::test
