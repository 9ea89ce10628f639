// The reuse of memory totals (core/memory/memory_totals_cache.h): kept no longer than
// the backend allowed, dropped for a cell by any write to it, and never kept when a
// write raced the count.
#include "core/memory/memory_totals_cache.h"
#include "core/domain/plugin_call.h"

#include <gtest/gtest.h>

namespace agentrt::core {
namespace {

using namespace std::chrono_literals;
using Clock = MemoryTotalsCache::Clock;
using nlohmann::json;

MemoryTotalsCache::Totals totals(int about_me) {
  return std::make_shared<const json>(json{{"about_me", about_me}});
}

int about_me(const MemoryTotalsCache::Totals& found) {
  return found ? found->value("about_me", -1) : -1;
}

TEST(MemoryTotalsCache, TotalsAreReusedUntilTheirTimeEnds) {
  MemoryTotalsCache cache;
  const auto t0 = Clock::now();
  EXPECT_FALSE(cache.find("acme", "alice", t0));
  cache.remember("acme", "alice", totals(3), 60s, cache.generation(), t0);
  EXPECT_EQ(about_me(cache.find("acme", "alice", t0 + 59s)), 3);
  EXPECT_FALSE(cache.find("acme", "bob", t0)) << "another actor's totals are its own";
  EXPECT_FALSE(cache.find("globex", "alice", t0)) << "and another cell's";
  EXPECT_FALSE(cache.find("acme", "alice", t0 + 60s)) << "kept past the time allowed";
  EXPECT_EQ(cache.size(), 0u) << "a lapsed entry is gone";
  cache.remember("acme", "alice", totals(4), 60s, cache.generation(), t0 + 61s);
  EXPECT_EQ(about_me(cache.find("acme", "alice", t0 + 61s)), 4) << "and its cell takes new ones";
}

TEST(MemoryTotalsCache, NothingIsKeptWithoutPermissionAndNothingBeyondTheCap) {
  MemoryTotalsCache cache;
  const auto t0 = Clock::now();
  cache.remember("acme", "zero", totals(1), 0s, cache.generation(), t0);
  cache.remember("acme", "negative", totals(1), -5s, cache.generation(), t0);
  cache.remember("acme", "null", nullptr, 60s, cache.generation(), t0);
  EXPECT_EQ(cache.size(), 0u);
  cache.remember("acme", "long", totals(1), 86400s, cache.generation(), t0);
  EXPECT_TRUE(cache.find("acme", "long", t0 + MemoryTotalsCache::kMaxReuse - 1s));
  EXPECT_FALSE(cache.find("acme", "long", t0 + MemoryTotalsCache::kMaxReuse));
}

TEST(MemoryTotalsCache, AWriteToACellDropsItsTotalsAndOnlyThose) {
  MemoryTotalsCache cache;
  const auto t0 = Clock::now();
  cache.remember("acme", "alice", totals(1), 60s, cache.generation(), t0);
  cache.remember("acme", "bob", totals(2), 60s, cache.generation(), t0);
  cache.remember("globex", "alice", totals(5), 60s, cache.generation(), t0);
  cache.forget_cell("acme");
  // Shared layers make one actor's write change every actor's totals in the cell.
  EXPECT_FALSE(cache.find("acme", "alice", t0));
  EXPECT_FALSE(cache.find("acme", "bob", t0));
  EXPECT_EQ(about_me(cache.find("globex", "alice", t0)), 5);
  EXPECT_EQ(cache.size(), 1u);
}

// A count that began before a write may have read the store before the write landed.
TEST(MemoryTotalsCache, TotalsCountedBeforeAWriteAreNotKept) {
  MemoryTotalsCache cache;
  const auto t0 = Clock::now();
  const uint64_t before = cache.generation();
  cache.forget_cell("globex");  // any cell: the generation is shared
  cache.remember("acme", "alice", totals(0), 60s, before, t0);
  EXPECT_FALSE(cache.find("acme", "alice", t0));
  cache.remember("acme", "alice", totals(1), 60s, cache.generation(), t0);
  EXPECT_EQ(about_me(cache.find("acme", "alice", t0)), 1);
}

TEST(MemoryTotalsCache, AFullCacheStartsOverInsteadOfGrowing) {
  MemoryTotalsCache cache;
  const auto t0 = Clock::now();
  for (size_t i = 0; i < MemoryTotalsCache::kMaxEntries; ++i)
    cache.remember("cell" + std::to_string(i % 7), "actor" + std::to_string(i), totals(1), 60s,
                   cache.generation(), t0);
  EXPECT_EQ(cache.size(), MemoryTotalsCache::kMaxEntries);
  cache.remember("acme", "one-more", totals(9), 60s, cache.generation(), t0);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(about_me(cache.find("acme", "one-more", t0)), 9);
  cache.remember("acme", "one-more", totals(8), 60s, cache.generation(), t0);
  EXPECT_EQ(cache.size(), 1u) << "replacing an entry does not count it twice";
  EXPECT_EQ(about_me(cache.find("acme", "one-more", t0)), 8);
}

// A backend (or auth module) with a malformed "cache_s" gets no reuse, and its call
// still works: reading the field with json::value threw for a string.
TEST(AllowedReuse, OnlyAWholeNumberOfSecondsAllowsReuse) {
  EXPECT_EQ(allowed_reuse(json{{"about_me", 1}, {"cache_s", 60}}), 60s);
  EXPECT_EQ(allowed_reuse(json{{"about_me", 1}}), 0s);
  EXPECT_EQ(allowed_reuse(json{{"cache_s", "60"}}), 0s);
  EXPECT_EQ(allowed_reuse(json{{"cache_s", 1.5}}), 0s);
  EXPECT_EQ(allowed_reuse(json{{"cache_s", nullptr}}), 0s);
  EXPECT_EQ(allowed_reuse(json::array({60})), 0s);
  EXPECT_EQ(allowed_reuse(json{{"cache_s", -5}}), -5s) << "the caches refuse what is not positive";
}

}  // namespace
}  // namespace agentrt::core
