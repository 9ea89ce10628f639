// The reuse of verified token claims (core/auth/verified_tokens.h): kept no longer
// than allowed, dropped by a revocation, and never kept when a revocation raced the
// verification.
#include "core/auth/verified_tokens.h"

#include <gtest/gtest.h>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;
using Clock = VerifiedTokens::Clock;

Principal principal(const std::string& id, std::optional<std::string> cell = std::nullopt) {
  Principal who;
  who.token_id = id;
  who.actor = "actor-" + id;
  who.cell = std::move(cell);
  return who;
}

TEST(VerifiedTokens, ClaimsAreReusedUntilTheirTimeEnds) {
  VerifiedTokens tokens;
  const auto t0 = Clock::now();
  EXPECT_FALSE(tokens.find("art_a", t0));
  tokens.remember("art_a", principal("a"), 60s, tokens.epoch(), t0);
  auto found = tokens.find("art_a", t0 + 59s);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->actor, "actor-a");
  EXPECT_FALSE(tokens.find("art_a", t0 + 60s)) << "kept past the time the module allowed";
  EXPECT_FALSE(tokens.find("art_a", t0 + 1s)) << "a lapsed entry is gone";
  EXPECT_FALSE(tokens.find("art_b", t0));
}

TEST(VerifiedTokens, NothingIsKeptWithoutPermissionAndNothingBeyondTheCap) {
  VerifiedTokens tokens;
  const auto t0 = Clock::now();
  tokens.remember("art_zero", principal("z"), 0s, tokens.epoch(), t0);
  tokens.remember("art_neg", principal("n"), -5s, tokens.epoch(), t0);
  EXPECT_EQ(tokens.size(), 0u);
  tokens.remember("art_long", principal("l"), 86400s, tokens.epoch(), t0);
  EXPECT_TRUE(tokens.find("art_long", t0 + VerifiedTokens::kMaxReuse - 1s));
  EXPECT_FALSE(tokens.find("art_long", t0 + VerifiedTokens::kMaxReuse));
}

TEST(VerifiedTokens, RevokingATokenOrItsCellDropsItAtOnce) {
  VerifiedTokens tokens;
  const auto t0 = Clock::now();
  tokens.remember("art_a", principal("a"), 60s, tokens.epoch(), t0);
  tokens.remember("art_b", principal("b", "acme"), 60s, tokens.epoch(), t0);
  tokens.remember("art_c", principal("c", "globex"), 60s, tokens.epoch(), t0);
  tokens.forget_token_id("a");
  EXPECT_FALSE(tokens.find("art_a", t0));
  tokens.forget_cell("acme");
  EXPECT_FALSE(tokens.find("art_b", t0));
  EXPECT_TRUE(tokens.find("art_c", t0)) << "another cell's token stays";
}

// A verification that began before a revocation may carry claims from before it.
TEST(VerifiedTokens, ClaimsVerifiedBeforeARevocationAreNotKept) {
  VerifiedTokens tokens;
  const uint64_t before = tokens.epoch();
  tokens.forget_token_id("a");  // the revocation lands while the module was asked
  tokens.remember("art_a", principal("a"), 60s, before);
  EXPECT_FALSE(tokens.find("art_a"));
  tokens.remember("art_a", principal("a"), 60s, tokens.epoch());
  EXPECT_TRUE(tokens.find("art_a"));
}

TEST(VerifiedTokens, AFullCacheStartsOver) {
  VerifiedTokens tokens;
  for (size_t i = 0; i < VerifiedTokens::kMaxEntries; ++i)
    tokens.remember("art_" + std::to_string(i), principal(std::to_string(i)), 60s, 0);
  EXPECT_EQ(tokens.size(), VerifiedTokens::kMaxEntries);
  tokens.remember("art_new", principal("new"), 60s, 0);
  EXPECT_EQ(tokens.size(), 1u);
  EXPECT_TRUE(tokens.find("art_new"));
}

}  // namespace
}  // namespace agentrt::core
