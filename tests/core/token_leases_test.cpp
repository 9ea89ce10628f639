// TokenLeases: revoking a token ends the leases of the streams open on it, and only
// theirs; a lease taken just after its token's revocation is born revoked.
#include "core/auth/token_leases.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

TEST(TokenLeases, RevokingATokenEndsItsLeasesAndRunsTheirHookOnce) {
  TokenLeases leases;
  int a_hooks = 0, b_hooks = 0;
  auto a1 = leases.hold("tok_a", [&] { ++a_hooks; });
  auto a2 = leases.hold("tok_a");
  auto b = leases.hold("tok_b", [&] { ++b_hooks; });
  EXPECT_EQ(leases.open(), 3u);
  EXPECT_FALSE(a1.revoked());
  EXPECT_EQ(leases.revoke("tok_a"), 2u);
  EXPECT_TRUE(a1.revoked());
  EXPECT_TRUE(a2.revoked());
  EXPECT_FALSE(b.revoked());
  EXPECT_EQ(a_hooks, 1);
  EXPECT_EQ(leases.revoke("tok_a"), 0u) << "already revoked";
  EXPECT_EQ(a_hooks, 1);
  EXPECT_EQ(b_hooks, 0);
}

TEST(TokenLeases, ALeaseEndsWithItsStream) {
  TokenLeases leases;
  {
    auto lease = leases.hold("tok");
    std::optional<TokenLeases::Lease> moved(std::move(lease));
    EXPECT_EQ(leases.open(), 1u);
  }
  EXPECT_EQ(leases.open(), 0u);
  EXPECT_EQ(leases.revoke("tok"), 0u);
}

// A request verified just before the revocation, taking its lease just after.
TEST(TokenLeases, ALeaseTakenJustAfterItsTokensRevocationIsBornRevoked) {
  TokenLeases leases;
  leases.revoke("tok_late");
  int hooks = 0;
  auto late = leases.hold("tok_late", [&] { ++hooks; });
  EXPECT_TRUE(late.revoked());
  EXPECT_EQ(hooks, 1);
  EXPECT_FALSE(leases.hold("tok_other").revoked());
  // Only the latest revocations are kept: the window they cover is microseconds.
  for (size_t i = 0; i < TokenLeases::kRecentRevocations; ++i)
    leases.revoke("tok_" + std::to_string(i));
  EXPECT_FALSE(leases.hold("tok_late").revoked());
  EXPECT_TRUE(leases.hold("tok_0").revoked());
}

// A module that gives no token id cannot revoke by it: such leases are never revoked,
// and the recent list's empty slots do not count as a revoked "" id.
TEST(TokenLeases, ALeaseWithoutATokenIdIsNeverRevoked) {
  TokenLeases leases;
  auto lease = leases.hold("");
  EXPECT_FALSE(lease.revoked());
  EXPECT_EQ(leases.revoke(""), 0u);
  EXPECT_FALSE(lease.revoked());
  EXPECT_EQ(leases.open(), 0u);
}

// Leases of one token end in any order (the newest, the oldest, one between): each
// leaves the token's list, and a revocation still reaches every lease left, and only
// those.
TEST(TokenLeases, LeasesEndingInAnyOrderLeaveTheRestRevocable) {
  TokenLeases leases;
  std::vector<int> hooks(6, 0);
  std::vector<std::optional<TokenLeases::Lease>> held;
  for (int i = 0; i < 6; ++i) held.emplace_back(leases.hold("tok", [&hooks, i] { ++hooks[i]; }));
  auto other = leases.hold("tok_other");
  for (int i : {5, 0, 3}) held[i].reset();  // the newest, the oldest, one between
  EXPECT_EQ(leases.open(), 4u);
  EXPECT_EQ(leases.revoke("tok"), 3u);
  EXPECT_EQ(hooks, (std::vector<int>{0, 1, 1, 0, 1, 0}));
  EXPECT_FALSE(other.revoked());
  held.clear();
  EXPECT_EQ(leases.open(), 1u);
  auto again = leases.hold("tok_again");
  for (int i = 0; i < 3; ++i) held.emplace_back(leases.hold("tok_again"));
  held[1].reset();  // one between
  held.clear();
  EXPECT_EQ(leases.revoke("tok_again"), 1u) << "only the lease still held";
  EXPECT_TRUE(again.revoked());
}

TEST(TokenLeases, LeasesComeAndGoWhileTokensAreRevoked) {
  TokenLeases leases;
  std::vector<std::thread> streams;
  for (int t = 0; t < 4; ++t)
    streams.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto lease = leases.hold("tok_" + std::to_string((t + i) % 3));
        (void)lease.revoked();
      }
    });
  for (int i = 0; i < 2000; ++i) leases.revoke("tok_" + std::to_string(i % 3));
  for (auto& stream : streams) stream.join();
  EXPECT_EQ(leases.open(), 0u);
}

}  // namespace
}  // namespace agentrt::core
